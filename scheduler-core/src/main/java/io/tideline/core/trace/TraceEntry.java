package io.tideline.core.trace;

/**
 * One line of a decision's rule trace (O2, P7): which rule applied to which subject, with what
 * outcome and why. Shared by every decision in the core (placement, fragmentation, quota, pricing,
 * forecast, slot classes) so services map one shape onto the {@code RuleTraceEntry} contract;
 * preemption keeps its own typed trace ({@code preemption.TraceEntry}) with rule and result enums.
 *
 * @param subject what the rule looked at (a job, node, queue, slot, the cluster)
 * @param rule the rule, with its requirement ID
 * @param outcome what the rule decided
 * @param detail the figures behind the outcome
 */
public record TraceEntry(String subject, String rule, String outcome, String detail) {

  @Override
  public String toString() {
    return subject + " | " + rule + " | " + outcome + " | " + detail;
  }
}
