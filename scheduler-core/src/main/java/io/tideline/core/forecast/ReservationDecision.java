package io.tideline.core.forecast;

import io.tideline.core.trace.TraceEntry;
import java.util.List;

/**
 * The outcome of one planner run for one service: the events to publish (possibly none) and the
 * rule trace that explains them and the rules that did not fire (O2).
 *
 * @param events events in the order the rules were applied: RELEASE, RESERVE, OVER_ISSUE
 * @param trace one entry per rule evaluated
 */
public record ReservationDecision(List<ReservationEvent> events, List<TraceEntry> trace) {

  public ReservationDecision {
    events = List.copyOf(events);
    trace = List.copyOf(trace);
  }
}
