package io.tideline.core.quota;

import java.time.Instant;

/**
 * An online service's guarantee moved after a peak review (requirement Q5); the quota service
 * publishes it so the hierarchy's floors and the dashboards follow the tide.
 *
 * @param service online service id
 * @param oldGuaranteeGpus guarantee before the review (0 for a new service)
 * @param newGuaranteeGpus guarantee after the review (0 for a retired service)
 * @param oldPeakGpus historical peak before, or {@code NaN} when the service was unknown
 * @param newPeakGpus historical peak after, or {@code NaN} when the service was retired
 * @param reason why it moved, in words
 * @param at event time of the review
 */
public record GuaranteeChange(
    String service,
    double oldGuaranteeGpus,
    double newGuaranteeGpus,
    double oldPeakGpus,
    double newPeakGpus,
    String reason,
    Instant at) {

  /** Positive when the guarantee grew. */
  public double delta() {
    return newGuaranteeGpus - oldGuaranteeGpus;
  }
}
