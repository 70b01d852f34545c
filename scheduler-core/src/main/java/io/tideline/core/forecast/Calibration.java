package io.tideline.core.forecast;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What the {@link DemandForecaster} remembers of its own recent forecasts for one service (and
 * one horizon): the forecasts waiting for their slot to complete, the settled ones (forecast
 * against actual) it calibrates its quantiles on, and the state of level-shift detection.
 * Immutable; {@link DemandForecaster#remember} and {@link DemandForecaster#settle} return the
 * next one.
 *
 * @param pending forecasts made whose slot has not completed yet, by slot start
 * @param settled forecasts whose slot completed with data, oldest first, within the calibration
 *     window
 * @param shiftAt start of the last detected level shift still inside the same-slot window (the
 *     statistics use only slots from it on), or {@code null}
 * @param runStart start of the current run of settled slots beyond the shift ratio, or
 *     {@code null}
 * @param runSide direction of that run: +1 above, -1 below the same-slot median, 0 none
 */
public record Calibration(List<Pending> pending, List<Settled> settled, Instant shiftAt,
    Instant runStart, int runSide) {

  /** No forecast made yet. */
  public static final Calibration EMPTY = new Calibration(List.of(), List.of(), null, null, 0);

  public Calibration {
    pending = List.copyOf(pending);
    settled = List.copyOf(settled);
    if (runSide < -1 || runSide > 1) {
      throw new IllegalArgumentException("runSide must be -1, 0 or 1: " + runSide);
    }
    if ((runStart == null) != (runSide == 0)) {
      throw new IllegalArgumentException("a run has a start and a side, or neither");
    }
  }

  /**
   * A forecast made and not yet compared with what happened.
   *
   * @param slotStart start of the forecast slot
   * @param slotEnd end (exclusive) of the slot
   * @param p50 the forecast median, GPUs
   * @param p90 the forecast reservation quantile, GPUs
   */
  public record Pending(Instant slotStart, Instant slotEnd, double p50, double p90) {
    public Pending {
      Objects.requireNonNull(slotStart, "slotStart");
      Objects.requireNonNull(slotEnd, "slotEnd");
    }
  }

  /**
   * A forecast compared with the slot's actual mean usage.
   *
   * @param slotStart start of the slot
   * @param p50 the forecast median, GPUs (positive)
   * @param p90 the forecast reservation quantile, GPUs
   * @param actual the slot's mean usage, GPUs
   */
  public record Settled(Instant slotStart, double p50, double p90, double actual) {
    public Settled {
      Objects.requireNonNull(slotStart, "slotStart");
      if (!(p50 > 0)) {
        throw new IllegalArgumentException("a settled forecast has a positive median: " + p50);
      }
    }

    /** Actual over forecast median: what the calibrated quantiles are read from. */
    public double ratio() {
      return actual / p50;
    }
  }
}
