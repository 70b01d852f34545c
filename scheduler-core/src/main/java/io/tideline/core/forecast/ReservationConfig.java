package io.tideline.core.forecast;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the F2/F3 reservation planner.
 *
 * @param leadTime how long before a slot its reservation is issued (F2); default 15 min
 * @param releaseEarly how long before a reservation ends its unused GPUs are released (F3
 *     over-forecast); default 10 min
 * @param quantile forecast quantile a reservation covers (F1/F2); default {@link Quantile#P90}
 * @param maxOverIssueGpus cap on GPUs a service may draw from the shared pool beyond what it holds
 *     when demand outruns the forecast (F3 under-forecast); default 16, two 8-GPU nodes. Not a
 *     REQUIREMENTS figure: an operator's choice, bounded further by the pool's idle GPUs
 */
public record ReservationConfig(
    Duration leadTime, Duration releaseEarly, Quantile quantile, int maxOverIssueGpus) {

  /** The documented defaults. */
  public static final ReservationConfig DEFAULTS =
      new ReservationConfig(Duration.ofMinutes(15), Duration.ofMinutes(10), Quantile.P90, 16);

  public ReservationConfig {
    Objects.requireNonNull(quantile, "quantile");
    if (leadTime.isNegative() || leadTime.isZero() || releaseEarly.isNegative()) {
      throw new IllegalArgumentException("lead time must be positive, release early not negative");
    }
    if (maxOverIssueGpus < 0) {
      throw new IllegalArgumentException("maxOverIssueGpus must not be negative");
    }
  }
}
