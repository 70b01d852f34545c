package io.tideline.preemption.view;

import io.tideline.events.PreemptionDecision;
import io.tideline.events.RuleTraceEntry;
import io.tideline.events.Victim;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * Renders a published decision for people (P7: every decision can be explained): what triggered
 * it, the verdict, each victim with its price and compensation, cost against gain, and the rule
 * trace line by line. Also the one-line summary of {@code GET /decisions}.
 */
public final class Explain {

  private Explain() {}

  /**
   * One decision in the recent list.
   *
   * @param decisionId decision id (the explain URL's last part)
   * @param trigger UNPLACEABLE, RESERVATION_START or IDLE_RECLAIM
   * @param preemptor the job (or reservation / reclaim) the room was for
   * @param outcome PREEMPT or REFUSED
   * @param victims victim job ids
   * @param totalCostGpuHours P4 cost of the set
   * @param gainGpuHours P5 gain
   * @param decidedAt event time of the decision
   * @param ledgerVersion placement ledger version decided against
   * @param policyVersion preemption policy in force
   * @param verdict the last trace line, why in one sentence
   */
  public record Summary(String decisionId, String trigger, String preemptor, String outcome,
      List<String> victims, double totalCostGpuHours, double gainGpuHours, Instant decidedAt,
      long ledgerVersion, String policyVersion, String verdict) {}

  /** The summary of {@code d}. */
  public static Summary summary(PreemptionDecision d) {
    List<RuleTraceEntry> t = d.getTrace();
    return new Summary(d.getDecisionId(), d.getTrigger(), d.getPreemptorJobId(),
        d.getOutcome().name(), d.getVictims().stream().map(Victim::getJobId).toList(),
        d.getTotalCostGpuHours(), d.getGainGpuHours(), d.getDecidedAt(), d.getLedgerVersion(),
        d.getPolicyVersion(), t.isEmpty() ? "" : t.get(t.size() - 1).getDetail());
  }

  /** The decision as readable text. */
  public static String render(PreemptionDecision d) {
    StringBuilder s = new StringBuilder();
    s.append("Preemption decision ").append(d.getDecisionId()).append('\n');
    s.append("  ").append(d.getOutcome()).append(" for ").append(d.getPreemptorJobId())
        .append(" (score ").append(n(d.getPreemptorScore())).append(") at ")
        .append(d.getDecidedAt()).append('\n');
    s.append("  trigger ").append(d.getTrigger()).append(", request ").append(d.getRequestId())
        .append(", cluster ").append(d.getCluster()).append(", ledger v")
        .append(d.getLedgerVersion()).append(", policy ").append(d.getPolicyVersion())
        .append('\n');
    s.append("  cost ").append(n(d.getTotalCostGpuHours())).append(" GPU-h, gain ")
        .append(n(d.getGainGpuHours())).append(" GPU-h\n");
    if (!d.getVictims().isEmpty()) {
      s.append("Victims:\n");
      for (Victim v : d.getVictims()) {
        s.append("  - ").append(v.getJobId()).append(" (").append(v.getUser()).append(", ")
            .append(v.getTenant()).append("): ").append(n(v.getGpus())).append(" GPU(s), score ")
            .append(n(v.getScore())).append(", cost ").append(n(v.getCostGpuHours()))
            .append(" GPU-h; compensation: queue boost ").append(n(v.getQueueBoost()))
            .append(" min");
        if (v.getRetryAfter() != null) {
          s.append(", off-peak retry from ").append(v.getRetryAfter());
        }
        if (v.getSharedPoolFallback()) {
          s.append(", shared-pool fallback");
        }
        s.append('\n');
      }
    }
    s.append("Rule trace:\n");
    int i = 1;
    for (RuleTraceEntry e : d.getTrace()) {
      s.append(String.format(Locale.ROOT, "%4d. %-24s %-22s %-7s %s%n", i++, e.getSubject(),
          e.getRule(), e.getOutcome(), e.getDetail()));
    }
    return s.toString();
  }

  private static String n(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }
}
