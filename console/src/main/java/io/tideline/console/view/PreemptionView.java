package io.tideline.console.view;

import io.tideline.events.Eviction;
import io.tideline.events.Notice;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.Victim;
import io.tideline.platform.explain.DecisionTrail;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every preemption decision (P1-P7): preemptor, victims with the score ratio of each, cost vs gain
 * in GPU-hours, the rule trace, the compensation each victim gets, and the evictions and notices
 * that followed from it (joined by decision id). A fold of {@code preemption.decisions},
 * {@code evictions} and {@code notices}.
 */
public final class PreemptionView {

  /** One victim: its score against the preemptor's, what it costs, what it is given back. */
  public record VictimRow(String jobId, String tenant, String user, double gpus, double score,
      double scoreRatio, double costGpuHours, double queueBoost, Instant retryAfter,
      Integer shrinkToGpus) {}

  /** One eviction that carried the decision out. */
  public record EvictionRow(String evictionId, String jobId, String kind, Instant issuedAt) {}

  /** One notice sent for the decision. */
  public record NoticeRow(String noticeId, String userId, String jobId, String kind,
      String compensation, Instant createdAt) {}

  /** One decision, with everything joined to it so far. */
  public record Row(String decisionId, String cluster, Instant decidedAt, String preemptorJobId,
      boolean applied, String trigger, double preemptorScore, double totalCostGpuHours,
      double gainGpuHours, List<VictimRow> victims, List<DecisionTrail.Step> trace,
      List<EvictionRow> evictions, List<NoticeRow> notices) {}

  private final Map<String, PreemptionDecision> decisions = new HashMap<>();
  private final Map<String, List<EvictionRow>> evictions = new HashMap<>();
  private final Map<String, List<NoticeRow>> notices = new HashMap<>();
  private final java.util.Set<String> seen = new java.util.HashSet<>();
  private long applied;
  private long refused;

  public void decision(PreemptionDecision d) {
    if (decisions.put(d.getDecisionId(), d) == null) {
      if (d.getOutcome() == PreemptionOutcome.PREEMPT) {
        applied++;
      } else {
        refused++;
      }
    }
  }

  public void eviction(Eviction e) {
    if (e.getDecisionId() != null && !e.getDecisionId().isEmpty()
        && seen.add("eviction/" + e.getEvictionId())) {
      evictions.computeIfAbsent(e.getDecisionId(), k -> new ArrayList<>()).add(new EvictionRow(
          e.getEvictionId(), e.getJobId(), e.getKind().name(), e.getIssuedAt()));
    }
  }

  public void notice(Notice n) {
    if (n.getDecisionId() != null && !n.getDecisionId().isEmpty()
        && seen.add("notice/" + n.getNoticeId())) {
      notices.computeIfAbsent(n.getDecisionId(), k -> new ArrayList<>()).add(new NoticeRow(
          n.getNoticeId(), n.getUserId(), n.getJobId(), n.getKind().name(), n.getCompensation(),
          n.getCreatedAt()));
    }
  }

  /** Decisions that preempted (P-outcome PREEMPT). */
  public long applied() {
    return applied;
  }

  /** Decisions that refused to preempt. */
  public long refused() {
    return refused;
  }

  /** One page of the decisions, newest first; {@code appliedOnly} leaves the refused ones out. */
  public Page<Row> page(int page, int size, boolean appliedOnly) {
    List<PreemptionDecision> all = new ArrayList<>();
    for (PreemptionDecision d : decisions.values()) {
      if (!appliedOnly || d.getOutcome() == PreemptionOutcome.PREEMPT) {
        all.add(d);
      }
    }
    all.sort(Comparator.comparing(PreemptionDecision::getDecidedAt).reversed()
        .thenComparing(PreemptionDecision::getDecisionId));
    Page<PreemptionDecision> p = Page.of(all, page, size);
    return new Page<>(p.items().stream().map(this::row).toList(), p.page(), p.pages(), p.total());
  }

  /** The decisions a job was part of, as preemptor or victim, newest first. */
  public List<Row> ofJob(String jobId) {
    return decisions.values().stream()
        .filter(d -> jobId.equals(d.getPreemptorJobId())
            || d.getVictims().stream().anyMatch(v -> jobId.equals(v.getJobId())))
        .sorted(Comparator.comparing(PreemptionDecision::getDecidedAt).reversed())
        .map(this::row).toList();
  }

  private Row row(PreemptionDecision d) {
    List<VictimRow> victims = new ArrayList<>();
    for (Victim v : d.getVictims()) {
      victims.add(new VictimRow(v.getJobId(), v.getTenant(), v.getUser(), v.getGpus(), v.getScore(),
          v.getScore() == 0 ? Double.POSITIVE_INFINITY : d.getPreemptorScore() / v.getScore(),
          v.getCostGpuHours(), v.getQueueBoost(), v.getRetryAfter(), v.getShrinkToGpus()));
    }
    return new Row(d.getDecisionId(), d.getCluster(), d.getDecidedAt(), d.getPreemptorJobId(),
        d.getOutcome() == PreemptionOutcome.PREEMPT, d.getTrigger(), d.getPreemptorScore(),
        d.getTotalCostGpuHours(), d.getGainGpuHours(), victims,
        d.getTrace().stream().map(t -> new DecisionTrail.Step(t.getSubject(), t.getRule(),
            t.getOutcome(), t.getDetail())).toList(),
        List.copyOf(evictions.getOrDefault(d.getDecisionId(), List.of())),
        List.copyOf(notices.getOrDefault(d.getDecisionId(), List.of())));
  }
}
