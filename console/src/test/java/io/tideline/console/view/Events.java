package io.tideline.console.view;

import io.tideline.events.BillingUsage;
import io.tideline.events.CapacityReservation;
import io.tideline.events.Eviction;
import io.tideline.events.DomainLevel;
import io.tideline.events.EvictionKind;
import io.tideline.events.FragmentationReport;
import io.tideline.events.FragmentationTrigger;
import io.tideline.events.GpuAssignment;
import io.tideline.events.Lane;
import io.tideline.events.NodeFragmentationFigure;
import io.tideline.events.Notice;
import io.tideline.events.NoticeKind;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.PricingKind;
import io.tideline.events.QueuePosition;
import io.tideline.events.QuotaSegment;
import io.tideline.events.QuotaState;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.ReservationAction;
import io.tideline.events.RuleTraceEntry;
import io.tideline.events.SlotClass;
import io.tideline.events.SlotForecast;
import io.tideline.events.Verdict;
import io.tideline.events.Victim;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Builders of the events the console folds, with explicit times (test scenarios only). */
public final class Events {

  // Every enum field is set, defaults too: a builder's enum default is made by Avro's class
  // loader, not the running application's, inside a Quarkus test.
  private Events() {}

  public static PlacementDecision placed(String jobId, Instant at, String node, int gpus) {
    List<GpuAssignment> a = new ArrayList<>();
    for (int i = 0; i < gpus; i++) {
      a.add(GpuAssignment.newBuilder().setNodeId(node).setGpuIndex(i).setShare(1.0).build());
    }
    return PlacementDecision.newBuilder().setDecisionId("p-" + jobId + "-" + at.toEpochMilli())
        .setCluster("c1").setJobId(jobId).setDecidedAt(at).setOutcome(PlacementOutcome.PLACED)
        .setAssignments(a).setDomainLevel(DomainLevel.NODE).setCrossDomain(false).setScore(1).setLedgerVersion(1).setPolicyVersion("test")
        .setTrace(List.of(step(jobId, "fits-node", "PLACED", "8 free GPUs on " + node))).build();
  }

  public static RuleTraceEntry step(String subject, String rule, String outcome, String detail) {
    return RuleTraceEntry.newBuilder().setSubject(subject).setRule(rule).setOutcome(outcome)
        .setDetail(detail).build();
  }

  public static Victim victim(String jobId, double score, double gpus, double cost) {
    return Victim.newBuilder().setJobId(jobId).setTenant("research").setUser("bob")
        .setScore(score).setGpus(gpus).setCostGpuHours(cost).setQueueBoost(0.5).build();
  }

  public static PreemptionDecision preempt(String id, String preemptor, Instant at,
      PreemptionOutcome outcome, double preemptorScore, List<Victim> victims) {
    return preempt(id, preemptor, "UNPLACEABLE", at, outcome, preemptorScore, victims);
  }

  /**
   * A decision as the planner writes it: a PREEMPT's cost is its victims' and its gain beats it;
   * a REFUSED one found no victim above the score threshold, so it names none and costs nothing.
   */
  public static PreemptionDecision preempt(String id, String preemptor, String trigger,
      Instant at, PreemptionOutcome outcome, double preemptorScore, List<Victim> victims) {
    boolean preempts = outcome == PreemptionOutcome.PREEMPT;
    double cost = victims.stream().mapToDouble(Victim::getCostGpuHours).sum();
    double gain = preempts ? 6.0 : 0.0;
    double ratio = preemptorScore / victims.stream().mapToDouble(Victim::getScore).max().orElse(1);
    List<RuleTraceEntry> trace = preempts
        ? List.of(step(preemptor, "score-threshold", "PASSED", String.format(java.util.Locale.ROOT,
            "score ratio %.2f >= 1.50", ratio)),
            step(id, "cost-vs-gain", "TAKEN", String.format(java.util.Locale.ROOT,
                "gain %.2f GPU-h vs cost %.2f GPU-h", gain, cost)))
        : List.of(step(preemptor, "score-threshold", "REFUSED",
            "no running job with a score ratio >= 1.50"));
    return PreemptionDecision.newBuilder().setDecisionId(id).setRequestId("r-" + id)
        .setCluster("c1").setPreemptorJobId(preemptor).setDecidedAt(at).setOutcome(outcome)
        .setPreemptorScore(preemptorScore).setVictims(victims).setTotalCostGpuHours(cost)
        .setGainGpuHours(gain).setLedgerVersion(3).setPolicyVersion("test")
        .setTrace(trace).setTrigger(trigger).build();
  }

  public static Eviction eviction(String id, String jobId, String decisionId, Instant at) {
    return Eviction.newBuilder().setEvictionId(id).setJobId(jobId).setCluster("c1")
        .setKind(EvictionKind.PREEMPT).setDecisionId(decisionId).setCheckpointFirst(true)
        .setGraceSeconds(30).setTarget(List.of()).setReason("preempted").setIssuedAt(at).build();
  }

  public static Notice notice(String id, String jobId, String decisionId, Instant at) {
    return Notice.newBuilder().setNoticeId(id).setUserId("bob").setJobId(jobId)
        .setKind(NoticeKind.PREEMPTED).setLocale("en").setReason("online demand rose")
        .setEstimateBasis("trough").setCompensation("queue boost 0.5").setQuotaRequestUrl("")
        .setDecisionId(decisionId).setCreatedAt(at).build();
  }

  public static QueuePosition queued(String jobId, Lane lane, int position, Instant at,
      String basis) {
    return QueuePosition.newBuilder().setJobId(jobId).setCluster("c1").setLane(lane)
        .setPosition(position).setEstimatedStart(at.plusSeconds(3600)).setEstimateBasis(basis)
        .setCompensationBoost(0).setUpdatedAt(at).build();
  }

  public static QuotaVerdict verdict(String jobId, Verdict v, String reason, Instant at) {
    return QuotaVerdict.newBuilder().setJobId(jobId).setTenant("search").setQueue("search/ranking")
        .setDecidedAt(at).setVerdict(v).setGpus(8).setPreemptible(true)
        .setPreemptionRightGranted(false).setReason(reason).setUnblockHint(
            v == Verdict.QUEUED ? "search/ranking frees 8 GPUs" : null)
        .setFairShareUsage(0.4).setPolicyVersion("test").setTrace(List.of()).build();
  }

  public static QuotaState quota(String queue, String tenant, double floor, double usedGuaranteed,
      double usedBorrowed, Instant at) {
    return QuotaState.newBuilder().setQueue(queue).setTenant(tenant)
        .setSegment(QuotaSegment.OFFLINE_GUARANTEED).setGuaranteedGpus(floor)
        .setBorrowCapGpus(16).setLendingLimitGpus(floor).setUsedGuaranteedGpus(usedGuaranteed)
        .setUsedBorrowedGpus(usedBorrowed).setFairShareUsage(0.25).setUpdatedAt(at)
        .setPolicyVersion("test").build();
  }

  public static BillingUsage bill(String tenant, String jobId, Instant from, double gpuSeconds,
      double amount) {
    return BillingUsage.newBuilder().setTenant(tenant).setQueue(tenant + "/q").setJobId(jobId)
        .setFrom(from).setTo(from.plusSeconds(60)).setGpuSeconds(gpuSeconds).setGpuModel("H100")
        .setSlotClass(SlotClass.TROUGH).setPricing(PricingKind.ON_DEMAND).setPricePerGpuHour(1.0)
        .setAmount(amount).setCurrency("USD").build();
  }

  public static FragmentationReport fragmentation(Instant at, double stranded, int idle,
      List<NodeFragmentationFigure> nodes) {
    return FragmentationReport.newBuilder().setCluster("c1").setAt(at).setLedgerVersion(1)
        .setIndex(stranded / Math.max(1, idle)).setStrandedGpus(stranded).setIdleGpus(idle)
        .setShapes(List.of()).setNodes(nodes).setTrigger(FragmentationTrigger.CHANGED)
        .setPolicyVersion("test").build();
  }

  public static NodeFragmentationFigure node(String id, int idle, double stranded) {
    return NodeFragmentationFigure.newBuilder().setNodeId(id).setIdleGpus(idle)
        .setStrandedGpus(stranded).setIndex(stranded / Math.max(1, idle)).setUsedShare(0.5).build();
  }

  public static CapacityReservation reserve(String service, double gpus, Instant at) {
    return CapacityReservation.newBuilder().setReservationId("res-" + service + at.toEpochMilli())
        .setServiceId(service).setAction(ReservationAction.RESERVE).setGpus(gpus)
        .setValidFrom(at.plusSeconds(900)).setValidUntil(at.plusSeconds(2700)).setQuantile("p90")
        .setReason("rise ahead").setIssuedAt(at).build();
  }

  public static SlotForecast forecast(String service, Instant slotStart, double p50, double p90) {
    return SlotForecast.newBuilder().setServiceId(service).setSlotStart(slotStart)
        .setSlotEnd(slotStart.plusSeconds(1800)).setHoliday(false).setSlotClass(SlotClass.PEAK)
        .setP50(p50).setP90(p90).setP95(p90).setP99(p90).setHistoricalPeak(p90).setSampleDays(14)
        .setComputedAt(slotStart.minusSeconds(3600)).build();
  }
}
