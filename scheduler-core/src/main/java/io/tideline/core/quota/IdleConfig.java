package io.tideline.core.quota;

import java.time.Duration;

/**
 * Idle-reclamation numbers (requirement Q7).
 *
 * @param shrinkBelowUtilisation Q7: a job whose GPU utilisation stays under this for the whole window
 *     may be shrunk; default 0.50
 * @param reclaimBelowUtilisation Q7 "holds GPUs without using them": under this for the whole window
 *     the GPUs are reclaimable; default 0.05 (≈ 0 %)
 * @param window how long the utilisation must stay low; default 1 hour (Q7 gives no figure: long
 *     enough to skip data loading and evaluation pauses)
 * @param maxSampleGap largest gap between samples (and at the window's edges) for the window to count
 *     as observed; default 5 minutes
 * @param speedupPerDoubling Q7 scaling model: doubling a job's GPUs divides its run time by this;
 *     default 1.5, which is exactly the requirement's example (4 → 2 GPUs stretches 10 h → 15 h)
 * @param minGpus never recommend fewer GPUs than this; default 1
 */
public record IdleConfig(
    double shrinkBelowUtilisation,
    double reclaimBelowUtilisation,
    Duration window,
    Duration maxSampleGap,
    double speedupPerDoubling,
    int minGpus) {

  /** The documented defaults. */
  public static final IdleConfig DEFAULTS =
      new IdleConfig(0.50, 0.05, Duration.ofHours(1), Duration.ofMinutes(5), 1.5, 1);

  public IdleConfig {
    if (!(reclaimBelowUtilisation >= 0 && reclaimBelowUtilisation <= shrinkBelowUtilisation
        && shrinkBelowUtilisation <= 1)) {
      throw new IllegalArgumentException("need 0 <= reclaim <= shrink <= 1 utilisation thresholds");
    }
    if (!(speedupPerDoubling >= 1 && speedupPerDoubling <= 2)) {
      throw new IllegalArgumentException("speedupPerDoubling must be in [1, 2]");
    }
    if (window.isNegative() || window.isZero() || maxSampleGap.isNegative()
        || maxSampleGap.isZero() || minGpus < 1) {
      throw new IllegalArgumentException("window and maxSampleGap must be positive, minGpus >= 1");
    }
  }
}
