package io.tideline.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.GpuAssignment;
import io.tideline.events.JobSubmitted;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.platform.kernel.HostRecord;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.JobSubmissions;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The twin's invariants over whole runs of every policy (the shipped kernels; the baselines are
 * settings of them): a day on a small fleet under pressure, audited from what the schedulers
 * published by {@link LedgerAudit}, which keeps its own books.
 */
class TwinInvariantsTest {

  static final SimConfig PRESSURE = SimConfig.DEFAULTS.with(7L, 1, 8).withJobsPerDay(400);

  /** What one run published, audited as it went. */
  record Run(SimResult result, LedgerAudit audit, InProcessTransport transport) {}

  static Run run(Policy policy, SimConfig config) throws InterruptedException {
    Scenario s = Scenario.synthetic(config);
    Set<String> partition = new TreeSet<>(policy.placement(Twins.CLUSTER, s).inferencePartition());
    LedgerAudit audit = new LedgerAudit(partition);
    InProcessTransport t = Twins.inProcess(s, policy).tap(audit::accept);
    Transport audited = new Transport() {
      @Override
      public void publish(List<World.Timed> records) {
        records.forEach(r -> audit.accept(r.record()));
        t.publish(records);
      }

      @Override
      public void settle() {
        t.settle();
      }

      @Override
      public List<HostRecord> collect() {
        return t.collect();
      }

      @Override
      public boolean cascaded() {
        return t.cascaded();
      }

      @Override
      public void close() {
        t.close();
      }
    };
    SimResult r = Twin.run(policy.name(), Twins.world(s), audited, Twin.Settings.of(config),
        config.end(), null);
    return new Run(r, audit, t);
  }

  @Test
  void shouldNeverOverAllocateAGpuNorSplitAGangUnderAnyPolicy() throws Exception {
    for (Policy p : Policy.ALL) {
      Run r = run(p, PRESSURE);
      assertThat(r.audit().findings).as(p.name()).isEmpty();
      assertThat(r.result().jobsCompleted()).as(p.name() + " completes work").isPositive();
      assertThat(r.transport().refusals().values()).as(p.name() + " refuses nothing")
          .allSatisfy(x -> assertThat(x).isEmpty());
    }
  }

  @Test
  void shouldNeverLendTheInferencePartitionUnderTheHardSplit() throws Exception {
    Run r = run(Policy.HARD_SPLIT, PRESSURE);

    assertThat(Policy.HARD_SPLIT.placement(Twins.CLUSTER, Scenario.synthetic(PRESSURE))
        .inferencePartition()).isNotEmpty();
    assertThat(r.audit().findings).isEmpty();
    assertThat(r.result().evictions()).as("the hard split never preempts").isZero();
  }

  @Test
  void shouldPreemptMoreOftenWhenEveryJobMayPreemptThanWhenQuotaGrantsTheRight()
      throws Exception {
    Run naive = run(Policy.NAIVE_PREEMPTION, PRESSURE);
    Run tideline = run(Policy.TIDELINE, PRESSURE);

    assertThat(naive.result().evictions()).isGreaterThan(tideline.result().evictions());
  }

  /**
   * Measures follow applied facts: a preemption decision counts (and is judged effective or
   * not) only once placement enacted it — an eviction names it. A stale plan placement refused
   * evicted nobody. The pressured day has such plans, so counting decisions would differ.
   */
  @Test
  void shouldCountOnlyThePreemptionDecisionsPlacementEnacted() throws Exception {
    Scenario s = Scenario.synthetic(PRESSURE);
    Set<String> decided = new TreeSet<>();
    Set<String> enacted = new TreeSet<>();
    InProcessTransport t = Twins.inProcess(s, Policy.TIDELINE).tap(r -> {
      if (r.value() instanceof io.tideline.events.PreemptionDecision d
          && d.getOutcome() == io.tideline.events.PreemptionOutcome.PREEMPT) {
        decided.add(d.getDecisionId());
      } else if (r.value() instanceof io.tideline.events.Eviction e
          && e.getDecisionId() != null) {
        enacted.add(e.getDecisionId());
      }
    });
    SimResult r = Twin.run("tideline", Twins.world(s), t, Twin.Settings.of(PRESSURE),
        PRESSURE.end(), null);
    Set<String> counted = new TreeSet<>(decided);
    counted.retainAll(enacted);

    assertThat(decided).as("the day has plans placement did not enact")
        .hasSizeGreaterThan(counted.size());
    assertThat(r.preemptionDecisions()).isEqualTo(counted.size()).isPositive();
  }

  @Test
  void shouldGiveTheSameTableForTheSameSeed() throws Exception {
    assertThat(run(Policy.TIDELINE, PRESSURE).result())
        .isEqualTo(run(Policy.TIDELINE, PRESSURE).result());
  }

  @Test
  void shouldCatchADoubleBookedGpuAndASplitGang() {
    LedgerAudit audit = new LedgerAudit(Set.of());
    Instant t = Instant.parse("2026-11-02T10:00:00Z");
    JobSubmitted gang = JobSubmissions.training("g").gpus(4).gang(2, 2).at(t).build();
    audit.accept(new HostRecord(TopicCatalogue.JOBS_SUBMITTED, "g", gang));
    audit.accept(new HostRecord(TopicCatalogue.PLACEMENT_DECISIONS, "c", placed("a", t,
        gpu("n1", 0))));
    audit.accept(new HostRecord(TopicCatalogue.PLACEMENT_DECISIONS, "c", placed("b", t,
        gpu("n1", 0))));
    audit.accept(new HostRecord(TopicCatalogue.PLACEMENT_DECISIONS, "c", placed("g", t,
        gpu("n2", 0), gpu("n3", 0), gpu("n3", 1), gpu("n3", 2))));

    assertThat(audit.findings).hasSize(3)
        .anySatisfy(f -> assertThat(f).contains("GPU Gpu[node=n1, index=0] allocated 2.0 by b"))
        .anySatisfy(f -> assertThat(f).contains("a worker of g (2.0 GPUs) spans nodes"));
  }

  static GpuAssignment gpu(String node, int index) {
    return GpuAssignment.newBuilder().setNodeId(node).setGpuIndex(index).setShare(1.0).build();
  }

  static PlacementDecision placed(String job, Instant at, GpuAssignment... gpus) {
    return PlacementDecision.newBuilder().setDecisionId("d/" + job).setCluster("c").setJobId(job)
        .setDecidedAt(at).setOutcome(PlacementOutcome.PLACED).setAssignments(List.of(gpus))
        .setDomainLevel(io.tideline.events.DomainLevel.NODE).setCrossDomain(false).setScore(1)
        .setLedgerVersion(1).setPolicyVersion("p").setTrace(List.of()).build();
  }

}
