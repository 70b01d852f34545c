package io.tideline.core.preemption;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * When an evicted job should resume (P7: the victim is told an ETA and how it was made), from the
 * best source available at event time {@code now}. Pure: the notifier composes its notices with
 * it, and anything else that tells a victim when it resumes must use it too.
 *
 * <p>Rules, in order:
 * <ol>
 *   <li><b>The queue</b>: placement's estimated start for the job's queue position, never earlier
 *       than {@code now}.</li>
 *   <li><b>The forecast</b>: the start of the next trough period that begins after {@code now}.
 *       The forecaster sends trough <em>slots</em>; adjacent or overlapping slots are one period.
 *       A period under way at {@code now} does not count: the eviction itself shows that its room
 *       has been taken, so "resume now" would be a promise broken as it is made.</li>
 *   <li><b>The preemption's retry hint</b> (P6's off-peak retry), never earlier than
 *       {@code now}.</li>
 *   <li>Otherwise no estimate ({@link ResumeEstimate#none()}): the notice says so.</li>
 * </ol>
 */
public final class ResumeEstimator {

  private ResumeEstimator() {}

  /**
   * The estimate at event time {@code now}.
   *
   * @param queueEstimatedStart placement's estimated start for the job, or null
   * @param troughs forecast trough slots (any order, possibly adjacent or overlapping)
   * @param retryAfter the victim's retry hint, or null
   */
  public static ResumeEstimate estimate(Instant now, Instant queueEstimatedStart,
      Collection<TroughSlot> troughs, Instant retryAfter) {
    // 1. The queue knows best: its estimate, never earlier than now.
    if (queueEstimatedStart != null) {
      return new ResumeEstimate(max(now, queueEstimatedStart), ResumeEstimate.Basis.QUEUE);
    }
    // 2. The forecast: the next trough period to begin after now.
    Instant next = nextPeriodStart(now, troughs);
    if (next != null) {
      return new ResumeEstimate(next, ResumeEstimate.Basis.FORECAST_TROUGH);
    }
    // 3. The preemption's own off-peak hint.
    if (retryAfter != null) {
      return new ResumeEstimate(max(now, retryAfter), ResumeEstimate.Basis.RETRY_HINT);
    }
    return ResumeEstimate.none();
  }

  /** The start of the first trough period (merged slots) that begins after {@code now}, or null. */
  static Instant nextPeriodStart(Instant now, Collection<TroughSlot> troughs) {
    List<TroughSlot> slots = new ArrayList<>(troughs);
    slots.sort(null);
    Instant start = null;
    Instant end = null;
    for (TroughSlot s : slots) {
      if (end != null && !s.start().isAfter(end)) {
        end = max(end, s.end()); // adjacent or overlapping: the same period
        continue;
      }
      if (start != null && start.isAfter(now)) {
        return start;
      }
      start = s.start();
      end = s.end();
    }
    return start != null && start.isAfter(now) ? start : null;
  }

  private static Instant max(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }
}
