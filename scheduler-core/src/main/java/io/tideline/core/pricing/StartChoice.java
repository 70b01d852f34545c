package io.tideline.core.pricing;

import io.tideline.core.trace.TraceEntry;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/**
 * The cheapest start for a job in its window (requirement B2), and what it saves against starting
 * as early as possible.
 *
 * @param feasible whether the job fits between the earliest start and the deadline at all
 * @param start the chosen start, or {@code null} when infeasible
 * @param end start + duration, or {@code null} when infeasible
 * @param cost cost of the run from the chosen start, or {@code null} when infeasible
 * @param costAtEarliest cost when started at the earliest start, or {@code null} when infeasible
 * @param candidatesEvaluated how many starts were priced
 * @param trace the rules consulted
 */
public record StartChoice(
    boolean feasible,
    Instant start,
    Instant end,
    BigDecimal cost,
    BigDecimal costAtEarliest,
    int candidatesEvaluated,
    List<TraceEntry> trace) {

  public StartChoice {
    trace = List.copyOf(trace);
  }

  /** What waiting for the chosen start saves (0 when infeasible or starting at once). */
  public BigDecimal saving() {
    return feasible ? costAtEarliest.subtract(cost) : BigDecimal.ZERO;
  }
}
