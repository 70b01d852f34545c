package io.tideline.core.preemption;

import java.time.Instant;

/**
 * When a preempted job should resume, and how that was estimated (P7: the notice says how).
 *
 * @param at estimated resume time, or null when nothing allows an estimate
 * @param basis where the estimate comes from
 */
public record ResumeEstimate(Instant at, Basis basis) {

  /** The source of an estimate, in the order they are preferred. */
  public enum Basis {
    /** Placement's own estimate for the job's queue position. */
    QUEUE,
    /** Start of the next trough slot the forecaster predicts (F4). */
    FORECAST_TROUGH,
    /** The preemption's off-peak retry hint (P6). */
    RETRY_HINT,
    /** No estimate possible. */
    NONE;

    /** The value written in {@code Notice.estimateBasis} (empty for NONE). */
    public String code() {
      return this == NONE ? "" : name();
    }
  }

  /** No estimate. */
  public static ResumeEstimate none() {
    return new ResumeEstimate(null, Basis.NONE);
  }
}
