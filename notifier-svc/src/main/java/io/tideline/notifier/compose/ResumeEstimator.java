package io.tideline.notifier.compose;

import java.time.Instant;
import java.util.Collection;

/**
 * Estimates when a preempted job resumes (P7), from the best source available at event time
 * {@code now}: placement's queue estimate, else the forecaster's next trough slot, else the
 * preemption's off-peak retry hint.
 */
public final class ResumeEstimator {

  private ResumeEstimator() {}

  /**
   * The estimate at event time {@code now}.
   *
   * @param queueEstimatedStart placement's estimated start for the job, or null
   * @param troughs forecast trough slots (any order)
   * @param retryAfter the victim's retry hint, or null
   */
  public static ResumeEstimate estimate(Instant now, Instant queueEstimatedStart,
      Collection<TroughSlot> troughs, Instant retryAfter) {
    // 1. The queue knows best: its estimate, never earlier than now.
    if (queueEstimatedStart != null) {
      return new ResumeEstimate(max(now, queueEstimatedStart), ResumeEstimate.Basis.QUEUE);
    }
    // 2. The forecast: the trough slot we are in (resume now) or the next one to start.
    Instant next = null;
    for (TroughSlot s : troughs) {
      if (s.end().isAfter(now)) {
        Instant candidate = max(now, s.start());
        if (next == null || candidate.isBefore(next)) {
          next = candidate;
        }
      }
    }
    if (next != null) {
      return new ResumeEstimate(next, ResumeEstimate.Basis.FORECAST_TROUGH);
    }
    // 3. The preemption's own off-peak hint.
    if (retryAfter != null) {
      return new ResumeEstimate(max(now, retryAfter), ResumeEstimate.Basis.RETRY_HINT);
    }
    return ResumeEstimate.none();
  }

  private static Instant max(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }
}
