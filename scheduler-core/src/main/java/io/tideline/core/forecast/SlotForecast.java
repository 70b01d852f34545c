package io.tideline.core.forecast;

import io.tideline.core.trace.TraceEntry;
import java.time.Instant;
import java.util.List;

/**
 * The F1 forecast of one service's usage in one slot: quantiles of same-slot usage from the
 * history of the slot's day kind, with the trace of how it was obtained. Published on
 * {@code forecast.slots} and read by the {@link ReservationPlanner}.
 *
 * @param serviceId the online service
 * @param slotStart start of the forecast slot
 * @param slotEnd end (exclusive) of the forecast slot
 * @param dayKind holiday flag of the slot's day
 * @param basis which history the quantiles come from
 * @param daysUsed days of history that contributed samples
 * @param samples number of usage samples behind the quantiles
 * @param p50 median usage, GPUs
 * @param p90 90th percentile, GPUs
 * @param p95 95th percentile, GPUs
 * @param p99 99th percentile, GPUs
 * @param relativeAccuracy the sketch's relative accuracy α: each quantile is within ±α of exact
 * @param trace how the forecast was made
 */
public record SlotForecast(
    String serviceId,
    Instant slotStart,
    Instant slotEnd,
    DayKind dayKind,
    ForecastBasis basis,
    int daysUsed,
    long samples,
    double p50,
    double p90,
    double p95,
    double p99,
    double relativeAccuracy,
    List<TraceEntry> trace) {

  public SlotForecast {
    trace = List.copyOf(trace);
  }

  /** Forecast usage at quantile {@code q}, GPUs (possibly fractional). */
  public double value(Quantile q) {
    return switch (q) {
      case P50 -> p50;
      case P90 -> p90;
      case P95 -> p95;
      case P99 -> p99;
    };
  }

  /**
   * Whole GPUs to hold to cover quantile {@code q}, forgiving the sketch's own error: a reading of
   * 3.03 for an exact 3 GPUs gives 3, not 4. See {@link #wholeGpus(double, double)}.
   */
  public int wholeGpus(Quantile q) {
    return wholeGpus(value(q), relativeAccuracy);
  }

  /**
   * Rounds a sketch estimate to whole GPUs. The exact value {@code x} satisfies
   * {@code |estimate - x| <= α·x}. (1) If some whole count {@code n} is compatible with the
   * estimate ({@code n(1-α) <= estimate <= n(1+α)}), take the largest such {@code n}: exact for
   * integer usage below {@code 1/(2α)} GPUs (49 at α = 1%), at most {@code 2α·x} above it
   * beyond, never below it. (2) Otherwise the usage is fractional: round up.
   */
  static int wholeGpus(double estimate, double relativeAccuracy) {
    if (estimate <= 0) {
      return 0;
    }
    double slack = 1e-9;
    long largest = (long) Math.floor(estimate / (1 - relativeAccuracy) + slack);
    if (largest > 0 && largest * (1 + relativeAccuracy) + slack >= estimate) {
      return (int) largest;
    }
    return (int) Math.ceil(estimate);
  }
}
