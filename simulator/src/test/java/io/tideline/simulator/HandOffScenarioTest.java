package io.tideline.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.cluster.state.ClusterState;
import io.tideline.core.preemption.kernel.PreemptionPolicy;
import io.tideline.core.scheduling.PlacementPolicy;
import io.tideline.events.CapacityReservation;
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
import io.tideline.events.PreemptionRequest;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.ReclaimAction;
import io.tideline.events.ReservationAction;
import io.tideline.events.Verdict;
import io.tideline.platform.kernel.HostRecord;
import io.tideline.platform.kernel.PlacementHost;
import io.tideline.platform.kernel.PreemptionHost;
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
 * The hand-offs between placement and preemption, end to end through their hosts — the code the
 * services' single writers run — on one in-process bus: one typed request, one applier, one
 * applied fact each (issue #14). The test plays the executor and quota.
 */
class HandOffScenarioTest {

  static final String C = "c1";
  static final Instant T0 = Instant.parse("2026-11-02T13:00:00Z");

  InProcessTransport bus;
  final Published published = new Published();
  Instant clock;
  PlacementHost placement;
  PreemptionHost preemption;

  @BeforeEach
  void services() {
    placement = new PlacementHost(PlacementPolicy.defaults(C));
    preemption = new PreemptionHost(PreemptionPolicy.defaults(C));
    bus = new InProcessTransport()
        .with("placement", placement, Set.copyOf(PlacementHost.inputTopics()))
        .with("preemption", preemption, Set.copyOf(PreemptionHost.inputTopics()))
        .tap(published);
  }

  void send(String topic, String key, SpecificRecord value, Instant at) {
    if (clock != null && at.isAfter(clock) && !TopicCatalogue.CLUSTER_CLOCK.equals(topic)) {
      tick(at); // the cluster clock follows the scenario (inputs far ahead of it are refused)
    }
    bus.publish(List.of(new World.Timed(at, new HostRecord(topic, key, value))));
  }

  /** A cycle at {@code at}: the tick, settle, and what the schedulers published. */
  List<HostRecord> tick(Instant at) {
    bus.settle();
    clock = at;
    send(TopicCatalogue.CLUSTER_CLOCK, C, ClockTick.newBuilder().setCluster(C).setTime(at)
        .setSequence(0).setIntervalMillis(60_000).setSource(ClockSource.SIMULATED).build(), at);
    bus.settle();
    return bus.collect();
  }

  /** Cycles 1 ms apart while the schedulers' records cascade. */
  void settleCascade(Instant from) {
    Instant t = from;
    for (int i = 0; i < 10; i++) {
      tick(t);
      if (!bus.cascaded()) {
        return;
      }
      t = t.plusMillis(1);
    }
  }

  void nodes(int n) {
    for (NodeInventory inv : ClusterNodes.joined(C, n, T0)) {
      send(TopicCatalogue.CLUSTER_INVENTORY, inv.getNodeId(), inv, T0);
    }
  }

  void admit(JobSubmitted job, boolean right, Instant at) {
    send(TopicCatalogue.JOBS_SUBMITTED, job.getJobId(), job, at);
    send(TopicCatalogue.QUOTA_VERDICTS, job.getJobId(), QuotaVerdict.newBuilder()
        .setJobId(job.getJobId()).setTenant(job.getTenant()).setQueue("q").setDecidedAt(at)
        .setVerdict(right || !job.getPreemptible() ? Verdict.GUARANTEED : Verdict.SHARED)
        .setGpus(job.getResources().getGpuCount() == 1 ? job.getResources().getGpuShare()
            : job.getResources().getGpuCount())
        .setPreemptible(job.getPreemptible()).setPreemptionRightGranted(right)
        .setReason("test").setPolicyVersion("q").build(), at);
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

  ClusterState preemptionView() {
    return preemptionState().cluster();
  }

  io.tideline.core.preemption.kernel.PreemptionState preemptionState() {
    return bus.state("preemption");
  }

  /** Two old training jobs fill two nodes; an online job with the right to preempt arrives. */
  void fullFleetWithOldTraining() {
    nodes(2);
    admit(JobSubmissions.training("train-a").gpus(8).gang(8, 1).at(T0).build(), false, T0);
    admit(JobSubmissions.training("train-b").gpus(8).gang(8, 1).at(T0).build(), false, T0);
    settleCascade(T0.plusMillis(1));
    lifecycle("train-a", LifecycleType.STARTED, T0.plusMillis(1));
    lifecycle("train-b", LifecycleType.STARTED, T0.plusMillis(1));
    settleCascade(T0.plusMillis(2));
  }

  @Test
  void shouldEvictTheVictimsHoldTheirGpusAndPlaceThePreemptorOnceTheyStop() {
    fullFleetWithOldTraining();
    Instant t = T0.plus(Duration.ofHours(1));
    JobSubmitted inf = JobSubmissions.onlineInference("inf-1", "search", 1.0).gpus(8)
        .gang(8, 1).at(t).build();
    admit(inf, true, t);
    settleCascade(t.plusMillis(1));

    // one request → one decision → one applied fact (the eviction) and a hold for the preemptor
    assertThat(of(PreemptionRequest.class)).singleElement()
        .satisfies(r -> assertThat(r.getPreemptorJobId()).isEqualTo("inf-1"));
    PreemptionDecision pd = of(PreemptionDecision.class).get(0);
    assertThat(pd.getOutcome()).isEqualTo(PreemptionOutcome.PREEMPT);
    List<Eviction> ev = of(Eviction.class);
    assertThat(ev).singleElement().satisfies(e -> {
      assertThat(e.getKind()).isEqualTo(EvictionKind.PREEMPT);
      assertThat(e.getDecisionId()).isEqualTo(pd.getDecisionId());
    });
    assertThat(outcomes("inf-1")).containsExactly(PlacementOutcome.PREEMPTION_REQUESTED,
        PlacementOutcome.HELD_FOR_PREEMPTOR);
    // the executor stops the victim; the preemptor gets the held GPUs
    String victim = ev.get(0).getJobId();
    lifecycle(victim, LifecycleType.PREEMPTED, t.plusSeconds(12));
    settleCascade(t.plusSeconds(12).plusMillis(1));
    assertThat(outcomes("inf-1")).endsWith(PlacementOutcome.PLACED);
    assertThat(outcomes(victim)).endsWith(PlacementOutcome.RELEASED);
  }

  @Test
  void shouldTellPreemptionTheWaitPlacementExpectsInsteadOfAFixedAssumption() {
    nodes(1);
    JobSubmitted a = JobSubmissions.training("train-a").gpus(8).gang(8, 1).at(T0)
        .expectedDuration(Duration.ofHours(2)).build();
    admit(a, false, T0);
    settleCascade(T0.plusMillis(1));
    Instant t = T0.plus(Duration.ofMinutes(30));
    admit(JobSubmissions.onlineInference("inf-1", "search", 1.0).gpus(8).gang(8, 1).at(t)
        .build(), true, t);
    settleCascade(t.plusMillis(1));

    PreemptionRequest r = of(PreemptionRequest.class).get(0);
    // train-a declared 2 h and has run 30 min: placement expects 90 min without preemption
    assertThat(r.getExpectedWaitSeconds()).isEqualTo(Duration.ofMinutes(90).toSeconds() - 0);
    PreemptionDecision pd = of(PreemptionDecision.class).get(0);
    assertThat(pd.getTrace()).anySatisfy(e -> assertThat(e.getDetail())
        .contains("placement expects a wait of 5400 s"));
  }

  @Test
  void shouldShowPreemptionPlacementsReservationsInItsView() {
    nodes(2);
    settleCascade(T0.plusMillis(1));
    Instant t = T0.plus(Duration.ofMinutes(10));
    send(TopicCatalogue.CAPACITY_RESERVATIONS, "search", CapacityReservation.newBuilder()
        .setReservationId("search/14:15").setServiceId("search")
        .setAction(ReservationAction.RESERVE).setGpus(4).setValidFrom(t.plusSeconds(900))
        .setValidUntil(t.plusSeconds(3600)).setQuantile("p90").setReason("rise")
        .setIssuedAt(t).build(), t);
    settleCascade(t.plusMillis(1));

    assertThat(preemptionView().reservations().get("search/14:15")).isNotNull()
        .satisfies(r -> assertThat(r.gpus()).hasSize(4));
    assertThat(preemptionView().version()).isEqualTo(placementVersion());
  }

  long placementVersion() {
    return bus.<io.tideline.core.scheduling.PlacementState>state("placement").cluster().version();
  }

  @Test
  void shouldShrinkAnUnderusedJobAndQueueItAgainWithFewerGpusAndAStretchedRunTime() {
    nodes(1);
    JobSubmitted a = JobSubmissions.training("train-a").gpus(8).gang(8, 1).at(T0)
        .expectedDuration(Duration.ofHours(10)).build();
    admit(a, false, T0);
    settleCascade(T0.plusMillis(1));
    Instant t = T0.plus(Duration.ofHours(1));
    lifecycle("train-a", LifecycleType.STARTED, T0.plusMillis(1));
    send(TopicCatalogue.QUOTA_RECLAIMS, "train-a", QuotaReclaim.newBuilder().setJobId("train-a")
        .setTenant("search").setQueue("q").setAction(ReclaimAction.SHRINK).setCurrentGpus(8)
        .setRecommendedGpus(4).setPeakUtilisation(0.3).setReason("peak 30% over 2 h")
        .setDecidedAt(t).setPolicyVersion("q").build(), t);
    settleCascade(t.plusMillis(1));

    PreemptionDecision pd = of(PreemptionDecision.class).get(0);
    assertThat(pd.getTrigger()).isEqualTo("SHRINK");
    assertThat(pd.getVictims().get(0).getShrinkToGpus()).isEqualTo(4);
    Eviction e = of(Eviction.class).get(0);
    assertThat(e.getKind()).isEqualTo(EvictionKind.SHRINK);
    assertThat(e.getShrinkToGpus()).isEqualTo(4);
    // stopped, it waits for quota's fresh verdict (P3), then runs on 4 GPUs
    lifecycle("train-a", LifecycleType.PREEMPTED, t.plusSeconds(12));
    settleCascade(t.plusSeconds(12).plusMillis(1));
    admit(a, false, t.plusSeconds(20));
    settleCascade(t.plusSeconds(20).plusMillis(1));
    PlacementDecision placed = of(PlacementDecision.class).stream()
        .filter(d -> d.getJobId().equals("train-a") && d.getOutcome() == PlacementOutcome.PLACED)
        .reduce((x, y) -> y).orElseThrow();
    assertThat(placed.getAssignments()).hasSize(4);
    assertThat(bus.<io.tideline.core.scheduling.PlacementState>state("placement").queue()
        .get("train-a").stretchedSeconds()).isEqualTo(Duration.ofHours(20).toSeconds());
  }
}
