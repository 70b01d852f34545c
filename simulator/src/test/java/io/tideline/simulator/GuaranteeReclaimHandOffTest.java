package io.tideline.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.preemption.kernel.PreemptionPolicy;
import io.tideline.core.quota.kernel.QuotaKernelConfig;
import io.tideline.core.scheduling.PlacementPolicy;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.QuotaConfigDocument;
import io.tideline.events.QuotaConfigFormat;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.ReclaimAction;
import io.tideline.events.Verdict;
import io.tideline.events.WorkloadClass;
import io.tideline.platform.kernel.HostRecord;
import io.tideline.platform.kernel.PlacementHost;
import io.tideline.platform.kernel.PreemptionHost;
import io.tideline.platform.kernel.quota.QuotaKernelHost;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.ClusterNodes;
import io.tideline.testkit.JobSubmissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Q3 end to end through the three schedulers' hosts on one bus — quota admits a guaranteed job
 * against the borrowers it names and asks for them, preemption decides, placement evicts exactly
 * those borrowers (the {@code Eviction} is the applied fact), quota learns the stop from the
 * lifecycle fact and the guaranteed job runs on the GPUs its guarantee was lent out of. The test
 * plays only the executor.
 */
class GuaranteeReclaimHandOffTest {

  static final String C = "c1";
  static final Instant T0 = Instant.parse("2026-11-02T13:00:00Z");

  /** 16 GPUs: online holds a guarantee of 8 and lends it while idle; research has none. */
  static final String QUOTA = """
      version: "q3-test"
      fleetGpus: 16
      nodes:
        - path: acme
          kind: ORGANISATION
          guaranteedGpus: 8
        - path: acme/online
          kind: BUSINESS_LINE
          guaranteedGpus: 8
          preemptionGrants: [ONLINE_INFERENCE]
        - path: acme/online/serving
          kind: TEAM
          guaranteedGpus: 8
        - path: acme/online/serving/inference
          kind: QUEUE
          lane: INFERENCE
          guaranteedGpus: 8
        - path: acme/research
          kind: BUSINESS_LINE
          guaranteedGpus: 0
        - path: acme/research/llm
          kind: TEAM
          guaranteedGpus: 0
        - path: acme/research/llm/training
          kind: QUEUE
          lane: TRAINING
          guaranteedGpus: 0
      """;

  InProcessTransport bus;
  final Published published = new Published();

  @BeforeEach
  void services() {
    bus = new InProcessTransport()
        .with("placement", new PlacementHost(PlacementPolicy.defaults(C)),
            Set.copyOf(PlacementHost.inputTopics()))
        .with("preemption", new PreemptionHost(PreemptionPolicy.defaults(C)),
            Set.copyOf(PreemptionHost.inputTopics()))
        .with("quota", new QuotaKernelHost(QuotaKernelConfig.defaults(C, null)),
            Set.copyOf(QuotaKernelHost.inputTopics()))
        .tap(published);
  }

  void send(String topic, String key, SpecificRecord value, Instant at) {
    bus.publish(List.of(new World.Timed(at, new HostRecord(topic, key, value))));
  }

  /** Cycles 1 ms apart from {@code from} while the schedulers' records cascade. */
  void cycles(Instant from) {
    Instant t = from;
    for (int i = 0; i < 20; i++) {
      bus.settle();
      send(TopicCatalogue.CLUSTER_CLOCK, C, ClockTick.newBuilder().setCluster(C).setTime(t)
          .setSequence(i).setIntervalMillis(60_000).setSource(ClockSource.SIMULATED).build(), t);
      bus.settle();
      bus.collect();
      if (!bus.cascaded()) {
        return;
      }
      t = t.plusMillis(1);
    }
  }

  void lifecycle(String job, LifecycleType type, Instant at) {
    send(TopicCatalogue.JOBS_LIFECYCLE, job, JobLifecycle.newBuilder().setJobId(job)
        .setCluster(C).setType(type).setOccurredAt(at).build(), at);
  }

  <T> List<T> of(Class<T> type) {
    return published.of(type);
  }

  List<PlacementOutcome> outcomes(String job) {
    return published.outcomes(job);
  }

  Verdict lastVerdict(String job) {
    return of(QuotaVerdict.class).stream().filter(v -> v.getJobId().equals(job))
        .reduce((a, b) -> b).map(QuotaVerdict::getVerdict).orElse(null);
  }

  JobSubmitted research(String id, Instant at) {
    return JobSubmissions.training(id).tenant("research", "llm").gpus(8).gang(8, 1).at(at)
        .build();
  }

  @Test
  void shouldEvictExactlyTheBorrowersQuotaNamesAndRunTheGuaranteedJobOnTheirGpus() {
    for (NodeInventory n : ClusterNodes.joined(C, 2, T0)) {
      send(TopicCatalogue.CLUSTER_INVENTORY, n.getNodeId(), n, T0);
    }
    send(QuotaKernelHost.inputTopics().get(0), C, QuotaConfigDocument.newBuilder().setCluster(C)
        .setVersion("q3-test").setFormat(QuotaConfigFormat.YAML).setDocument(QUOTA)
        .setAuthor("test").setPublishedAt(T0).build(), T0);
    // research borrows the whole fleet, online's idle guarantee included
    send(TopicCatalogue.JOBS_SUBMITTED, "b1", research("b1", T0), T0);
    send(TopicCatalogue.JOBS_SUBMITTED, "b2", research("b2", T0), T0);
    cycles(T0.plusMillis(1));
    assertThat(lastVerdict("b1")).isEqualTo(Verdict.SHARED);
    assertThat(lastVerdict("b2")).isEqualTo(Verdict.SHARED);
    assertThat(outcomes("b1")).containsExactly(PlacementOutcome.PLACED);
    assertThat(outcomes("b2")).containsExactly(PlacementOutcome.PLACED);
    Instant started = T0.plusSeconds(5);
    lifecycle("b1", LifecycleType.STARTED, started);
    lifecycle("b2", LifecycleType.STARTED, started);
    cycles(started.plusMillis(1));

    // an hour later online needs its guarantee: 8 GPUs of one serving instance
    Instant t = T0.plus(Duration.ofHours(1));
    cycles(t.minusSeconds(1)); // the cluster clock has moved on (inputs far ahead are refused)
    JobSubmitted online = JobSubmissions.training("inf-1").tenant("online", "serving")
        .workloadClass(WorkloadClass.ONLINE_INFERENCE).preemptible(false).gpus(8).gang(8, 1)
        .at(t).build();
    send(TopicCatalogue.JOBS_SUBMITTED, "inf-1", online, t);
    cycles(t.plusMillis(1));

    // 1. quota: guaranteed, against the borrowers it names, asked for in one reclaim
    assertThat(lastVerdict("inf-1")).isEqualTo(Verdict.GUARANTEED);
    QuotaReclaim reclaim = of(QuotaReclaim.class).stream()
        .filter(r -> r.getAction() == ReclaimAction.GUARANTEE).findFirst().orElseThrow();
    assertThat(reclaim.getJobId()).isEqualTo("inf-1");
    List<String> named = reclaim.getBorrowers().stream().map(b -> b.getJobId()).toList();
    assertThat(named).hasSize(1).isSubsetOf("b1", "b2");
    // 2. preemption decides for exactly those borrowers
    PreemptionDecision pd = of(PreemptionDecision.class).stream()
        .filter(d -> d.getOutcome() == PreemptionOutcome.PREEMPT).findFirst().orElseThrow();
    assertThat(pd.getVictims()).extracting(v -> v.getJobId()).containsExactlyElementsOf(named);
    // 3. placement applies it: one eviction per named borrower, the decision's id on it
    List<Eviction> evictions = of(Eviction.class);
    assertThat(evictions).extracting(Eviction::getJobId).containsExactlyElementsOf(named);
    assertThat(evictions).allSatisfy(e -> {
      assertThat(e.getDecisionId()).isEqualTo(pd.getDecisionId());
      assertThat(e.getKind()).isIn(EvictionKind.PREEMPT, EvictionKind.RECLAIM);
    });
    String victim = named.get(0);
    String other = victim.equals("b1") ? "b2" : "b1";
    assertThat(outcomes(other)).as("the borrower quota did not name keeps running")
        .containsExactly(PlacementOutcome.PLACED);

    // 4. the executor stops the borrower: quota counts it stopped, the guaranteed job runs
    Instant stopped = t.plusSeconds(30);
    lifecycle(victim, LifecycleType.PREEMPTED, stopped);
    cycles(stopped.plusMillis(1));
    assertThat(outcomes("inf-1")).endsWith(PlacementOutcome.PLACED);
    assertThat(outcomes(victim)).endsWith(PlacementOutcome.RELEASED);
    assertThat(lastVerdict(victim)).as("the stopped borrower waits again")
        .isEqualTo(Verdict.QUEUED);
    assertThat(of(Eviction.class)).as("nothing else evicted").hasSize(named.size());
    assertThat(bus.refusals().values()).allSatisfy(r -> assertThat(r).isEmpty());
  }
}
