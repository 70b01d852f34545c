package io.tideline.notifier.compose;

import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.RuleTraceEntry;
import io.tideline.events.Victim;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Builds preemption decisions shaped like the preemption core's, for notifier tests. */
public final class Decisions {

  private Decisions() {}

  /** A victim of {@code user} with score 1.0, cost 0.5 GPU-h, boost 0.2, no retry hint. */
  public static Victim victim(String jobId, String user) {
    return Victim.newBuilder().setJobId(jobId).setTenant("tenant-a").setUser(user).setScore(1.0)
        .setGpus(8).setCostGpuHours(0.5).setQueueBoost(0.2).setRetryAfter(null)
        .setSharedPoolFallback(false).build();
  }

  /**
   * A PREEMPT decision by an ONLINE_INFERENCE preemptor scoring 3.0 against {@code victims}, cost
   * the victims' sum, gain 12 GPU-h, with the trace lines the core writes.
   */
  public static PreemptionDecision preempt(String decisionId, Instant at, List<Victim> victims) {
    List<RuleTraceEntry> trace = new ArrayList<>();
    trace.add(entry("inf-7", "W4 right to preempt", "PASS", "ONLINE_INFERENCE may preempt"));
    trace.add(entry("inf-7", "P1 score", "PASS", "score 3.00 = priority 3.00 × weight 1.00"));
    trace.add(entry("inf-7", "P5 gain", "PASS", "gain 12.00 GPU-h = 8 GPUs × 1.50 h wait avoided"));
    double cost = 0;
    for (Victim v : victims) {
      cost += v.getCostGpuHours();
      trace.add(entry(v.getJobId(), "victim set", "TAKE", "score "
          + String.format(java.util.Locale.ROOT, "%.2f", v.getScore()) + ", ratio "
          + String.format(java.util.Locale.ROOT, "%.2f", 3.0 / v.getScore()) + ", cost "
          + String.format(java.util.Locale.ROOT, "%.2f", v.getCostGpuHours()) + " GPU-h"));
    }
    trace.add(entry("inf-7", "P5 gain vs cost", "PASS", "cost 0.50 GPU-h × 1.50 < gain 12.00"));
    return PreemptionDecision.newBuilder().setDecisionId(decisionId).setRequestId("req-" + decisionId)
        .setCluster("c1").setPreemptorJobId("inf-7").setDecidedAt(at)
        .setOutcome(PreemptionOutcome.PREEMPT).setPreemptorScore(3.0).setVictims(victims)
        .setTotalCostGpuHours(cost).setGainGpuHours(12.0).setLedgerVersion(42)
        .setPolicyVersion("p-2026.11").setTrace(trace).build();
  }

  /**
   * The eviction placement applies for {@code jobId} on decision {@code decisionId} (id
   * {@code <decisionId>/<jobId>}, as placement writes it), checkpoint first, 120 s grace.
   */
  public static Eviction eviction(String decisionId, String jobId, EvictionKind kind,
      Instant at) {
    return Eviction.newBuilder().setEvictionId(decisionId + "/" + jobId).setJobId(jobId)
        .setCluster("c1").setKind(kind).setDecisionId(decisionId).setCheckpointFirst(true)
        .setGraceSeconds(120).setTarget(List.of()).setReason(reasonOf(kind, decisionId))
        .setIssuedAt(at).build();
  }

  /** The PREEMPT evictions placement applies for every victim of {@code d}, at {@code at}. */
  public static List<Eviction> applied(PreemptionDecision d, Instant at) {
    return d.getVictims().stream()
        .map(v -> eviction(d.getDecisionId(), v.getJobId(), EvictionKind.PREEMPT, at)).toList();
  }

  private static String reasonOf(EvictionKind kind, String decisionId) {
    return switch (kind) {
      case PREEMPT -> "preempted (decision " + decisionId + ")";
      case RECLAIM -> "idle reclaim (Q7): holds GPUs without using them (decision " + decisionId
          + ")";
      case SHRINK -> "shrunk (Q7): uses under half of its GPUs (decision " + decisionId + ")";
      case MIGRATE -> "defragmentation move (decision " + decisionId + ")";
    };
  }

  /**
   * A reclaim decision as preemption writes it for quota's reclaim {@code reclaimId} of
   * {@code victim} (trigger IDLE_RECLAIM, SHRINK or GUARANTEE_RECLAIM): the head line quotes
   * quota's reason {@code why}.
   */
  public static PreemptionDecision reclaim(String decisionId, String reclaimId, String trigger,
      String rule, String why, Victim victim, Instant at) {
    List<RuleTraceEntry> trace = new ArrayList<>();
    trace.add(entry(reclaimId, rule, "PASS", "quota asks to reclaim " + victim.getJobId() + ": "
        + why));
    trace.add(entry(victim.getJobId(), "victim set", "TAKE", rule + "; score "
        + String.format(java.util.Locale.ROOT, "%.2f", victim.getScore()) + ", cost "
        + String.format(java.util.Locale.ROOT, "%.2f", victim.getCostGpuHours()) + " GPU-h"));
    return PreemptionDecision.newBuilder().setDecisionId(decisionId)
        .setRequestId(reclaimId).setCluster("c1").setPreemptorJobId(reclaimId).setDecidedAt(at)
        .setOutcome(PreemptionOutcome.PREEMPT).setPreemptorScore(0).setVictims(List.of(victim))
        .setTotalCostGpuHours(victim.getCostGpuHours()).setGainGpuHours(0).setLedgerVersion(42)
        .setPolicyVersion("p-2026.11").setTrace(trace).setTrigger(trigger).build();
  }

  static RuleTraceEntry entry(String subject, String rule, String outcome, String detail) {
    return RuleTraceEntry.newBuilder().setSubject(subject).setRule(rule).setOutcome(outcome)
        .setDetail(detail).build();
  }
}
