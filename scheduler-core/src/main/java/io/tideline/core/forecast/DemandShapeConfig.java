package io.tideline.core.forecast;

import java.time.Duration;
import java.time.LocalTime;

/**
 * Settings for turning a request-rate trace into GPU demand on a wall clock (W2).
 *
 * @param requestsPerSecondPerGpu requests per second one GPU serves (W2 "utilisation moves with
 *     concurrency"); default 5.0, which puts the shipped 48–583 req/s trace at 10–117 GPUs.
 *     Not a REQUIREMENTS figure: set it from the service's measured throughput
 * @param dailyMinimumAt local time the daily minimum of an anonymised trace is aligned to;
 *     default 04:00, the night trough of a consumer-facing service
 * @param smoothing width of the centred moving average used to find the daily minimum, so one
 *     noisy step does not decide the alignment; default 1 h
 * @param dayStart start of the daytime window of W2; default 08:00
 * @param dayEnd end (exclusive) of the daytime window of W2; default 22:00
 * @param tidalDayShare share of daily demand W2 says the daytime window holds; default 0.70
 */
public record DemandShapeConfig(
    double requestsPerSecondPerGpu,
    LocalTime dailyMinimumAt,
    Duration smoothing,
    LocalTime dayStart,
    LocalTime dayEnd,
    double tidalDayShare) {

  /** The documented defaults. */
  public static final DemandShapeConfig DEFAULTS = new DemandShapeConfig(5.0, LocalTime.of(4, 0),
      Duration.ofHours(1), LocalTime.of(8, 0), LocalTime.of(22, 0), 0.70);

  public DemandShapeConfig {
    if (!(requestsPerSecondPerGpu > 0)) {
      throw new IllegalArgumentException("requestsPerSecondPerGpu must be positive");
    }
    if (!dayEnd.isAfter(dayStart)) {
      throw new IllegalArgumentException("daytime window must not wrap midnight");
    }
  }
}
