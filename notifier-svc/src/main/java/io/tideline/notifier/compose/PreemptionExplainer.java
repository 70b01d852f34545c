package io.tideline.notifier.compose;

import io.tideline.events.PreemptionDecision;
import io.tideline.events.RuleTraceEntry;
import io.tideline.events.Victim;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the facts an owner needs out of a preemption decision and its rule trace (P7: "every
 * decision can be explained"). The trace's rule names are the public rule labels of the
 * preemption core ("W4 right to preempt", "P2 score threshold", "P3 protection", "victim set",
 * ...); matching is by the requirement prefix so a relabelled rule still reads.
 */
public final class PreemptionExplainer {

  private static final Pattern RATIO = Pattern.compile("ratio (\\d+(?:\\.\\d+)?)");
  private static final Pattern CLASS_RIGHT = Pattern.compile("^([A-Z_]+) may preempt");
  private static final Pattern TENANT_RIGHT = Pattern.compile("^tenant (\\S+)");

  /** How a reclaim decision's head line quotes quota. */
  private static final String QUOTA_ASKS = "quota asks to reclaim ";

  private PreemptionExplainer() {}

  /** The explanation of {@code victim}'s eviction by {@code decision}. */
  public static Explanation explain(PreemptionDecision decision, Victim victim) {
    String preemptor = decision.getPreemptorJobId();
    String right = null;
    Double ratio = null;
    String protection = null;
    // 1. Walk the trace once: the preemptor's right, the victim's ratio and protection lines.
    for (RuleTraceEntry e : decision.getTrace()) {
      String rule = e.getRule().toLowerCase(java.util.Locale.ROOT);
      if (e.getSubject().equals(preemptor) && rule.startsWith("w4 right")
          && !"REFUSE".equalsIgnoreCase(e.getOutcome())) {
        right = rightOf(e.getDetail());
      } else if (e.getSubject().equals(victim.getJobId())) {
        Matcher m = RATIO.matcher(e.getDetail());
        if (m.find()) {
          ratio = Double.parseDouble(m.group(1));
        }
        if (rule.contains("protection")) {
          protection = e.getDetail();
        }
      }
    }
    // 2. Without a ratio in the trace, compute it from the scores the decision carries.
    double r = ratio != null ? ratio
        : victim.getScore() > 0 ? decision.getPreemptorScore() / victim.getScore() : 0;
    return new Explanation(victim.getJobId(), preemptor, right, decision.getPreemptorScore(),
        victim.getScore(), r, victim.getCostGpuHours(), decision.getTotalCostGpuHours(),
        decision.getGainGpuHours(), decision.getVictims().size(), protection,
        decision.getPolicyVersion());
  }

  /**
   * Quota's own reason for a reclaim decision (Q7 idle reclaim or shrink, Q3 guarantee reclaim),
   * as the decision's head line quotes it ({@code quota asks to reclaim <job>: <why>}), or null
   * when the decision is no reclaim or does not quote one.
   */
  public static String quotaReason(PreemptionDecision decision) {
    for (RuleTraceEntry e : decision.getTrace()) {
      String rule = e.getRule().toLowerCase(java.util.Locale.ROOT);
      String detail = e.getDetail();
      if (e.getSubject().equals(decision.getPreemptorJobId())
          && (rule.startsWith("q7") || rule.startsWith("q3")) && detail != null
          && detail.startsWith(QUOTA_ASKS)) {
        int colon = detail.indexOf(": ");
        return colon < 0 ? null : detail.substring(colon + 2);
      }
    }
    return null;
  }

  private static String rightOf(String detail) {
    if (detail == null) {
      return null;
    }
    if (detail.startsWith("critical")) {
      return "CRITICAL";
    }
    Matcher c = CLASS_RIGHT.matcher(detail);
    if (c.find()) {
      return c.group(1);
    }
    Matcher t = TENANT_RIGHT.matcher(detail);
    return t.find() ? "TENANT:" + t.group(1) : null;
  }
}
