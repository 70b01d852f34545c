package io.tideline.simulator;

import io.tideline.core.cluster.Reservation;
import io.tideline.core.cluster.state.LedgerChange;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * F3's over-issue as the fleet lived it (issue #21 point 5): how often it fired and how many
 * GPU-hours it took from the shared pool, counted from the ledger changes placement applied (the
 * twin's {@code placement.ledger}), not from the forecaster's OVER_ISSUE intentions — an
 * over-issue placement could not fill, or one released early, counts what it really held.
 *
 * <ul>
 *   <li><b>over-issues</b>: over-issue reservations ({@link Reservation#isOverIssue()}) set in
 *       the ledger holding at least one GPU; a later change of the same one (an early release of
 *       some of its GPUs) is not a new one, a new command (a new {@code startsAt}) is.
 *   <li><b>over-issued GPU-hours</b>: for each, its GPUs × the time it held them: from when it
 *       was set (or its start, if later) to when it was dropped, changed or ended (its
 *       {@code releasedAt}), whichever comes first; one still held at the end counts up to it.
 * </ul>
 */
final class OverIssueMeter {

  private static final double SECONDS_PER_HOUR = 3600.0;

  /** An over-issue held since {@code from}: {@code gpus} GPUs until {@code until} at most. */
  private record Held(Instant startsAt, Instant from, Instant until, int gpus) {
    double gpuSecondsUntil(Instant end) {
      Instant stop = until != null && until.isBefore(end) ? until : end;
      return stop.isAfter(from) ? gpus * (double) Duration.between(from, stop).toMillis() / 1000
          : 0;
    }
  }

  private final Map<String, Held> held = new TreeMap<>();
  private long overIssues;
  private double closedGpuSeconds;

  /** Takes one applied ledger change into account; every other kind of change is ignored. */
  void apply(LedgerChange change) {
    if (change instanceof LedgerChange.ReservationSet s && s.reservation().isOverIssue()) {
      Reservation r = s.reservation();
      Held before = close(r.id(), s.at());
      if (r.gpus().isEmpty()) {
        return;
      }
      if (before == null || !before.startsAt().equals(r.startsAt())) {
        overIssues++;
      }
      Instant from = s.at().isBefore(r.startsAt()) ? r.startsAt() : s.at();
      held.put(r.id(), new Held(r.startsAt(), from, r.releasedAt(), r.gpus().size()));
    } else if (change instanceof LedgerChange.ReservationDropped d) {
      close(d.reservationId(), d.at());
    }
  }

  /** Over-issues that held GPUs so far. */
  long overIssues() {
    return overIssues;
  }

  /** GPU-hours over-issues held up to {@code end} (those still held count up to it). */
  double gpuHours(Instant end) {
    double open = 0;
    for (Held h : held.values()) {
      open += h.gpuSecondsUntil(end);
    }
    return (closedGpuSeconds + open) / SECONDS_PER_HOUR;
  }

  private Held close(String id, Instant at) {
    Held h = held.remove(id);
    if (h != null) {
      closedGpuSeconds += h.gpuSecondsUntil(at);
    }
    return h;
  }
}
