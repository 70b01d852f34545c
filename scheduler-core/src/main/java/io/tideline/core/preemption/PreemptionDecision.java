package io.tideline.core.preemption;

import java.time.Instant;
import java.util.List;

/**
 * The result of one preemption decision (a {@code preemption.decisions} event): the verdict, the
 * victims with their price and compensation, the totals compared under P5, and the rule trace
 * that explains every candidate (P7, O2).
 *
 * @param outcome PREEMPT or REFUSED
 * @param preemptorId the job asking for room
 * @param preemptorScore its P1 score
 * @param victims chosen victims, cheapest first; empty when refused
 * @param totalCostGpuHours P4 cost of the chosen set (or of the set found, when refused on P5); 0
 *     when no set was found
 * @param gainGpuHours P5 gain of placing the preemptor now
 * @param trace rule trace: preemptor rules, one entry per candidate (in snapshot order), verdict
 * @param policyVersion the config's policy version
 * @param decidedAt the {@code now} the decision was taken at
 */
public record PreemptionDecision(
    Outcome outcome,
    String preemptorId,
    double preemptorScore,
    List<Victim> victims,
    double totalCostGpuHours,
    double gainGpuHours,
    List<TraceEntry> trace,
    String policyVersion,
    Instant decidedAt) {

  public PreemptionDecision {
    victims = List.copyOf(victims);
    trace = List.copyOf(trace);
  }

  /** Whether the preemption goes ahead. */
  public boolean preempts() {
    return outcome == Outcome.PREEMPT;
  }

  /** The verdict of a preemption decision. */
  public enum Outcome {
    PREEMPT,
    REFUSED
  }
}
