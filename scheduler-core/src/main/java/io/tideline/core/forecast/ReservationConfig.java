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
 * @param startEviction what a reservation's start evicts for (ADR 0039): {@link
 *     StartEviction#MEDIAN} (default) the part the forecast median expects the rise to use,
 *     {@link StartEviction#ON_WAIT} nothing until an instance of the service waits, {@link
 *     StartEviction#RESERVED} the whole reservation. In every mode the rest of the reservation
 *     stays reserved (no new work lands on it from its start) and is reclaimed for instances
 *     that wait
 */
public record ReservationConfig(
    Duration leadTime, Duration releaseEarly, Quantile quantile, int maxOverIssueGpus,
    StartEviction startEviction) {

  /** What a reservation's start evicts the holders of its GPUs for (ADR 0039). */
  public enum StartEviction {
    /** Every reserved GPU (the quantile the reservation covers): ready for the upper tail. */
    RESERVED,
    /** The GPUs the forecast median expects the rise to use; the tail is reclaimed on a wait. */
    MEDIAN,
    /** Nothing at the start; GPUs are reclaimed only for instances that wait. */
    ON_WAIT
  }

  /** The documented defaults. */
  public static final ReservationConfig DEFAULTS = new ReservationConfig(Duration.ofMinutes(15),
      Duration.ofMinutes(10), Quantile.P90, 16, StartEviction.MEDIAN);


  public ReservationConfig {
    Objects.requireNonNull(quantile, "quantile");
    Objects.requireNonNull(startEviction, "startEviction");
    if (leadTime.isNegative() || leadTime.isZero() || releaseEarly.isNegative()) {
      throw new IllegalArgumentException("lead time must be positive, release early not negative");
    }
    if (maxOverIssueGpus < 0) {
      throw new IllegalArgumentException("maxOverIssueGpus must not be negative");
    }
  }

  /** These settings with another start eviction (ADR 0039). */
  public ReservationConfig withStartEviction(StartEviction e) {
    return new ReservationConfig(leadTime, releaseEarly, quantile, maxOverIssueGpus, e);
  }
}
