package io.tideline.placement.ledger;

import io.tideline.core.scheduling.PlacementPolicy;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.DeadLetter;
import io.tideline.events.DomainLevel;
import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.GpuAssignment;
import io.tideline.events.JobSubmitted;
import io.tideline.events.Lane;
import io.tideline.events.LifecycleType;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.PreemptionRequest;
import io.tideline.events.QueuePosition;
import io.tideline.events.Verdict;
import io.tideline.platform.security.Provenance;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.RegistryFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The placement flow as scenarios on the real topology ({@code TopologyTestDriver}, real schema
 * registry, explicit event times). Where each GPU goes is the core's business and tested there;
 * these scenarios test what the service does with the decisions: bind, queue, release, honour
 * reservations, ask for and apply preemption, defragment, refuse bad input.
 */
class PlacementFlowTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");
  @RegisterExtension static final RegistryFixture registry = new RegistryFixture();
  LedgerDriver d;

  @BeforeEach
  void driver() {
    d = new LedgerDriver(registry.url());
  }

  @AfterEach
  void close() {
    d.close();
  }

  static Instant t(int seconds) {
    return T0.plusSeconds(seconds);
  }

  static JobSubmitted training(String id, int gpus, Instant at) {
    return JobSubmissions.training(id).gpus(gpus).gang(gpus, 1).at(at).build();
  }

  static Set<String> gpus(PlacementDecision p) {
    return p.getAssignments().stream().map(a -> a.getNodeId() + "/" + a.getGpuIndex())
        .collect(Collectors.toSet());
  }

  static PlacementDecision only(List<PlacementDecision> ds, String job, PlacementOutcome o) {
    List<PlacementDecision> m = ds.stream()
        .filter(x -> x.getJobId().equals(job) && x.getOutcome() == o).toList();
    assertThat(m).as(job + " " + o + " in " + ds.stream().map(x -> x.getJobId() + ":"
        + x.getOutcome()).toList()).hasSize(1);
    return m.get(0);
  }

  @Test
  void shouldPlaceAnAdmittedJobWithEveryGpuOfItsGang() {
    d.nodes(2, t(0));
    d.admit(training("job-a", 8, t(10)), t(10));

    PlacementDecision p = only(d.decisions(), "job-a", PlacementOutcome.PLACED);
    assertThat(p.getAssignments()).hasSize(8)
        .allSatisfy(a -> assertThat(a.getShare()).isEqualTo(1.0));
    assertThat(p.getAssignments().stream().map(GpuAssignment::getNodeId).distinct()).hasSize(1);
    assertThat(p.getDomainLevel()).isEqualTo(DomainLevel.NODE);
    assertThat(p.getCrossDomain()).isFalse();
    assertThat(p.getDecidedAt()).isEqualTo(t(10).plusMillis(1)); // the tick after the inputs
    assertThat(p.getCluster()).isEqualTo(LedgerDriver.CLUSTER);
    assertThat(p.getPolicyVersion()).isEqualTo("placement-2");
    assertThat(p.getTrace()).isNotEmpty();
    assertThat(p.getLedgerVersion()).isGreaterThan(0);
  }

  @Test
  void shouldNotPlaceASubmissionBeforeQuotaAdmitsIt() {
    d.nodes(1, t(0));
    JobSubmitted job = training("job-a", 8, t(10));
    d.send(TopicCatalogue.JOBS_SUBMITTED, "job-a", job, t(10));
    assertThat(d.decisions()).isEmpty();

    d.admit(job, Verdict.QUEUED, false, t(20));
    assertThat(d.decisions()).isEmpty();
  }

  @Test
  void shouldQueueAGangThatDoesNotFitWithItsPositionInItsLane() {
    d.nodes(2, t(0));
    d.admit(training("big", 16, t(1)).getResources() == null ? null
        : JobSubmissions.training("big").gpus(16).gang(16, 2).at(t(1)).build(), t(1));
    d.admit(training("job-b", 8, t(2)), t(2));
    d.admit(training("job-c", 8, t(3)), t(3));

    List<PlacementDecision> ds = d.decisions();
    assertThat(only(ds, "big", PlacementOutcome.PLACED).getAssignments()).hasSize(16);
    assertThat(only(ds, "job-b", PlacementOutcome.QUEUED).getAssignments()).isEmpty();
    Map<String, QueuePosition> q = d.queue().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    assertThat(q.get("job-b").getPosition()).isEqualTo(1);
    assertThat(q.get("job-b").getLane()).isEqualTo(Lane.TRAINING);
    assertThat(q.get("job-c").getPosition()).isEqualTo(2);
    assertThat(q.get("job-c").getEstimateBasis()).contains("needs 16.00 GPU(s)");
  }

  @Test
  void shouldPlaceTheNextQueuedJobWhenACompletionFreesItsGpus() {
    d.nodes(1, t(0));
    d.admit(training("first", 8, t(1)), t(1));
    d.admit(training("second", 8, t(2)), t(2));
    PlacementDecision first = only(d.decisions(), "first", PlacementOutcome.PLACED);
    d.queue();

    d.lifecycle("first", LifecycleType.COMPLETED, t(100));

    List<PlacementDecision> ds = d.decisions();
    assertThat(gpus(only(ds, "first", PlacementOutcome.RELEASED))).isEqualTo(gpus(first));
    PlacementDecision second = only(ds, "second", PlacementOutcome.PLACED);
    assertThat(gpus(second)).isEqualTo(gpus(first));
    assertThat(second.getDecidedAt()).isEqualTo(t(100).plusMillis(1));
    assertThat(d.queue()).anySatisfy(e -> {
      assertThat(e.getKey()).isEqualTo("second");
      assertThat(e.getValue()).as("tombstone once placed").isNull();
    });
  }

  /**
   * {@code jobs.lifecycle} is the executor's (ADR 0029): on an open broker a {@code COMPLETED}
   * the executor did not write frees none of the job's GPUs; the executor's own fact does.
   */
  @Test
  void shouldFreeNothingOnAForgedCompletionOfARunningJob() {
    d.nodes(1, t(0));
    d.admit(training("running", 8, t(1)), t(1));
    d.admit(training("waiting", 8, t(2)), t(2));
    only(d.decisions(), "running", PlacementOutcome.PLACED);

    d.sendAs(null, TopicCatalogue.JOBS_LIFECYCLE, "running", completed("running", t(100)),
        t(100));
    d.sendAs("tideline-submitter", TopicCatalogue.JOBS_LIFECYCLE, "running",
        completed("running", t(101)), t(101));
    d.tick(t(102));

    assertThat(d.decisions()).as("nothing released, nothing placed").isEmpty();
    List<DeadLetter> letters = d.deadLetters(TopicCatalogue.JOBS_LIFECYCLE);
    assertThat(letters).extracting(DeadLetter::getErrorClass)
        .containsExactly("PROVENANCE", "PROVENANCE");
    assertThat(letters).extracting(DeadLetter::getError).containsExactly( // the rule's words
        Provenance.DEFAULT.refusal(TopicCatalogue.JOBS_LIFECYCLE, (String) null),
        Provenance.DEFAULT.refusal(TopicCatalogue.JOBS_LIFECYCLE, "tideline-submitter"));

    d.lifecycle("running", LifecycleType.COMPLETED, t(200));

    List<PlacementDecision> ds = d.decisions();
    only(ds, "running", PlacementOutcome.RELEASED);
    only(ds, "waiting", PlacementOutcome.PLACED);
  }

  private static io.tideline.events.JobLifecycle completed(String job, Instant at) {
    return io.tideline.events.JobLifecycle.newBuilder().setJobId(job)
        .setCluster(LedgerDriver.CLUSTER).setType(LifecycleType.COMPLETED).setOccurredAt(at).build();
  }

  @Test
  void shouldOfferTheInferenceLaneBeforeTrainingWhenGpusFree() {
    d.nodes(1, t(0));
    d.admit(training("filler", 8, t(1)), t(1));
    d.admit(training("train-waiting", 1, t(2)), t(2));
    d.admit(JobSubmissions.onlineInference("infer-waiting", "search-api", 1.0).at(t(3))
        .build(), t(3));
    d.decisions();

    d.lifecycle("filler", LifecycleType.COMPLETED, t(50));

    List<String> placed = d.decisions().stream()
        .filter(x -> x.getOutcome() == PlacementOutcome.PLACED).map(PlacementDecision::getJobId)
        .toList();
    assertThat(placed).containsExactly("infer-waiting", "train-waiting");
  }

  @Test
  void shouldHonourAServiceReservationOnceItHasStarted() {
    d.nodes(1, t(0));
    d.reserve("r-search", "search-api", 8, t(5), t(3600), t(5));
    d.admit(JobSubmissions.training("guaranteed-train").gpus(1).gang(1, 1).preemptible(false)
        .at(t(10)).build(), t(10));
    d.admit(JobSubmissions.onlineInference("search-1", "search-api", 0.5).at(t(11)).build(),
        t(11));

    List<PlacementDecision> ds = d.decisions();
    PlacementDecision queued = only(ds, "guaranteed-train", PlacementOutcome.QUEUED);
    assertThat(queued.getTrace()).anySatisfy(e -> assertThat(e.getRule())
        .isEqualTo("F2 reservation"));
    assertThat(only(ds, "search-1", PlacementOutcome.PLACED).getAssignments()).hasSize(1);
  }

  @Test
  void shouldLetPreemptibleWorkUseReservedGpusBeforeTheReservationStarts() {
    d.nodes(1, t(0));
    d.reserve("r-search", "search-api", 8, t(900), t(3600), t(5));
    d.admit(training("preemptible-train", 8, t(10)), t(10));

    assertThat(only(d.decisions(), "preemptible-train", PlacementOutcome.PLACED)
        .getAssignments()).hasSize(8);
  }

  @Test
  void shouldRequestPreemptionForAJobWithTheRightThatCannotBePlaced() {
    d.nodes(1, t(0));
    d.admit(training("victim", 8, t(1)), t(1));
    d.admit(JobSubmissions.onlineInference("online", "search-api", 1.0).at(t(2)).build(),
        Verdict.GUARANTEED, true, t(2));

    List<PreemptionRequest> reqs = d.preemptionRequests();
    assertThat(reqs).hasSize(1);
    PreemptionRequest r = reqs.get(0);
    assertThat(r.getPreemptorJobId()).isEqualTo("online");
    assertThat(r.getShape().getGpuCount()).isEqualTo(1);
    assertThat(r.getCluster()).isEqualTo(LedgerDriver.CLUSTER);
    long placedVersion = only(d.decisions(), "online", PlacementOutcome.PREEMPTION_REQUESTED)
        .getLedgerVersion();
    assertThat(r.getLedgerVersion()).isEqualTo(placedVersion);

    d.tick(t(60));
    assertThat(d.preemptionRequests()).as("asked once, not on every pass").isEmpty();
  }

  @Test
  void shouldEvictVictimsHoldTheirGpusAndBindThePreemptorWhenTheyStop() {
    d.nodes(1, t(0));
    d.admit(training("victim", 8, t(1)), t(1));
    d.admit(JobSubmissions.onlineInference("online", "search-api", 1.0).at(t(2)).build(),
        Verdict.GUARANTEED, true, t(2));
    PreemptionRequest r = d.preemptionRequests().get(0);
    d.decisions();

    d.preemption(r.getRequestId(), "online", r.getLedgerVersion(), List.of("victim"), t(5));
    List<Eviction> ev = d.evictions();
    assertThat(ev).hasSize(1);
    assertThat(ev.get(0).getJobId()).isEqualTo("victim");
    assertThat(ev.get(0).getKind()).isEqualTo(EvictionKind.PREEMPT);
    PlacementDecision held = only(d.decisions(), "online", PlacementOutcome.HELD_FOR_PREEMPTOR);
    assertThat(held.getAssignments()).hasSize(1);

    // a newcomer must not take the held GPU while the victim checkpoints
    d.lifecycle("victim", LifecycleType.PREEMPTED, t(30));
    List<PlacementDecision> ds = d.decisions();
    assertThat(gpus(only(ds, "online", PlacementOutcome.PLACED))).isEqualTo(gpus(held));
    only(ds, "victim", PlacementOutcome.RELEASED);
  }

  @Test
  void shouldNotApplyAPreemptionPlanWhoseVictimIsGone() {
    d.nodes(1, t(0));
    d.admit(training("a", 4, t(1)), t(1));
    d.admit(training("b", 4, t(2)), t(2));
    d.admit(JobSubmissions.training("critical").gpus(8).gang(8, 1).preemptible(false).at(t(3))
        .build(), Verdict.GUARANTEED, true, t(3));
    PreemptionRequest r = d.preemptionRequests().get(0);
    d.lifecycle("a", LifecycleType.COMPLETED, t(4));
    d.decisions();

    d.preemption(r.getRequestId(), "critical", r.getLedgerVersion(), List.of("a", "b"), t(5));

    assertThat(d.evictions()).isEmpty();
    List<PlacementDecision> ds = d.decisions();
    assertThat(ds).noneMatch(x -> x.getOutcome() == PlacementOutcome.HELD_FOR_PREEMPTOR);
    assertThat(ds).anySatisfy(x -> assertThat(x.getTrace()).anySatisfy(e -> assertThat(
        e.getDetail()).contains("no longer running").contains("a")));
  }

  @Test
  void shouldNotApplyAPreemptionPlanMadeOnALedgerThatMovedOn() {
    d.nodes(1, t(0));
    d.admit(training("a", 4, t(1)), t(1));
    d.admit(training("b", 4, t(2)), t(2));
    d.admit(JobSubmissions.training("critical").gpus(8).gang(8, 1).preemptible(false).at(t(3))
        .build(), Verdict.GUARANTEED, true, t(3));
    PreemptionRequest r = d.preemptionRequests().get(0);
    d.decisions();

    // planned on an older ledger where evicting "a" alone would have been enough
    d.preemption(r.getRequestId(), "critical", r.getLedgerVersion() - 1, List.of("a"), t(5));

    assertThat(d.evictions()).isEmpty();
    assertThat(d.decisions()).noneMatch(x -> x.getOutcome() == PlacementOutcome.HELD_FOR_PREEMPTOR)
        .anySatisfy(x -> assertThat(x.getTrace()).anySatisfy(e -> assertThat(e.getDetail())
            .contains("ledger now v" + r.getLedgerVersion())));
  }

  /** Defaults, but a budget a 16-GPU test cluster can spend (3% of 16 GPUs is under one GPU). */
  static PlacementPolicy generousBudget(io.tideline.core.slots.SlotClass slot) {
    return PlacementPolicy.defaults("c1")
        .withDefrag(new io.tideline.core.fragmentation.DefragConfig(0.5, Duration.ofHours(1),
            java.util.EnumSet.of(io.tideline.core.slots.SlotClass.TROUGH,
                io.tideline.core.slots.SlotClass.DEEP_TROUGH), 64))
        .withDefaultSlotClass(slot);
  }

  /** n01 and n02 each half used by a 4-GPU job; n03 runs an 8-GPU job (whole-node demand). */
  void fragmentTwoNodes() {
    d.nodes(3, t(0));
    d.admit(training("x1", 4, t(1)), t(1));
    d.admit(training("x2", 4, t(2)), t(2));
    d.admit(training("x3", 4, t(3)), t(3));
    d.admit(training("x4", 4, t(4)), t(4));
    d.admit(training("big", 8, t(4)), t(4));
    d.lifecycle("x2", LifecycleType.COMPLETED, t(5));
    d.lifecycle("x3", LifecycleType.COMPLETED, t(6));
    d.decisions();
  }

  @Test
  void shouldMigrateSmallJobsWhenTotalIdleWouldFitAGangThatIsFragmented() {
    d.close();
    d = new LedgerDriver(registry.url(), generousBudget(io.tideline.core.slots.SlotClass.FLAT));
    d.nodes(2, t(0));
    d.admit(training("x1", 4, t(1)), t(1));
    d.admit(training("x2", 4, t(2)), t(2));
    d.admit(training("x3", 4, t(3)), t(3));
    d.admit(training("x4", 4, t(4)), t(4));
    d.lifecycle("x2", LifecycleType.COMPLETED, t(5));
    d.lifecycle("x3", LifecycleType.COMPLETED, t(6));
    d.decisions();

    d.admit(training("whole-node", 8, t(10)), t(10));

    List<Eviction> ev = d.evictions();
    assertThat(ev).hasSize(1);
    assertThat(ev.get(0).getKind()).isEqualTo(EvictionKind.MIGRATE);
    assertThat(ev.get(0).getTarget()).hasSize(4);
    String migrant = ev.get(0).getJobId();
    List<PlacementDecision> ds = d.decisions();
    only(ds, migrant, PlacementOutcome.MIGRATED);
    assertThat(only(ds, "whole-node", PlacementOutcome.QUEUED).getTrace())
        .anySatisfy(e -> assertThat(e.getRule()).isEqualTo("T3 passive defrag"));
    assertThat(d.meters.value("tideline.placement.queue.length", "cluster", "c1", "lane",
        "TRAINING")).isEqualTo(0.0);

    d.lifecycle(migrant, LifecycleType.RESUMED, t(60));
    PlacementDecision placed = only(d.decisions(), "whole-node", PlacementOutcome.PLACED);
    assertThat(placed.getAssignments().stream().map(GpuAssignment::getNodeId).distinct())
        .hasSize(1);
  }

  @Test
  void shouldPublishFragmentationGaugesOnTicks() {
    d.nodes(2, t(0));
    d.admit(training("x1", 4, t(1)), t(1));
    d.admit(training("x2", 4, t(2)), t(2));
    d.admit(training("x3", 4, t(3)), t(3));
    d.lifecycle("x2", LifecycleType.COMPLETED, t(5));
    d.tick(t(60));

    // demand is 4-GPU pieces: every idle GPU (4 on each node) is usable, nothing is stranded
    assertThat(d.meters.value("tideline.placement.cluster.fragmentation", "cluster", "c1"))
        .isEqualTo(0.0);
    d.admit(training("x5", 3, t(70)), t(70));
    d.tick(t(120));
    assertThat(d.meters.value("tideline.placement.cluster.fragmentation", "cluster", "c1"))
        .isGreaterThan(0.0);
    assertThat(d.meters.value("tideline.placement.node.fragmentation", "cluster", "c1", "node",
        "n01")).isBetween(0.0, 1.0);
  }

  @Test
  void shouldKeepTheMigrationRateLimitOfThreePercent() {
    d.close();
    d = new LedgerDriver(registry.url(), PlacementPolicy.defaults("c1"));
    fragmentTwoNodes();

    d.admit(training("whole-node", 8, t(10)), t(10));

    // 3% of 24 GPUs is 0.72 GPU: moving a 4-GPU job would burst the T4 budget
    assertThat(d.evictions()).isEmpty();
    only(d.decisions(), "whole-node", PlacementOutcome.QUEUED);
  }

  @Test
  void shouldDefragmentActivelyInATroughSlot() {
    d.close();
    d = new LedgerDriver(registry.url(), generousBudget(io.tideline.core.slots.SlotClass.FLAT));
    fragmentTwoNodes();
    d.forecast("search-api", io.tideline.events.SlotClass.DEEP_TROUGH, t(0), t(7200), t(7));

    d.tick(t(60));

    List<Eviction> ev = d.evictions();
    assertThat(ev).hasSize(1);
    assertThat(ev.get(0).getKind()).isEqualTo(EvictionKind.MIGRATE);
    only(d.decisions(), ev.get(0).getJobId(), PlacementOutcome.MIGRATED);
  }

  @Test
  void shouldNeverDefragmentActivelyAtPeak() {
    d.close();
    d = new LedgerDriver(registry.url(), generousBudget(io.tideline.core.slots.SlotClass.TROUGH));
    fragmentTwoNodes();
    d.forecast("search-api", io.tideline.events.SlotClass.PEAK, t(0), t(7200), t(7));

    d.tick(t(60));

    assertThat(d.evictions()).isEmpty();
  }

  @Test
  void shouldDeadLetterBadSubmissionBytesAndKeepPlacing() {
    d.nodes(1, t(0));
    d.raw(TopicCatalogue.JOBS_SUBMITTED, "garbage", "not avro".getBytes(StandardCharsets.UTF_8),
        t(1));
    JobSubmitted negative = training("negative", 8, t(2));
    negative.getResources().setGpuCount(-2);
    d.send(TopicCatalogue.JOBS_SUBMITTED, "negative", negative, t(2));
    d.raw(TopicCatalogue.JOBS_LIFECYCLE, "x", new byte[] {0, 0, 0, 0, 99, 1}, t(3));
    d.admit(training("good", 8, t(4)), t(4));

    List<DeadLetter> letters = d.deadLetters(TopicCatalogue.JOBS_SUBMITTED);
    assertThat(letters).hasSize(2);
    assertThat(letters.get(0).getErrorClass()).isEqualTo("DESERIALIZATION");
    assertThat(StandardCharsets.UTF_8.decode(letters.get(0).getOriginalValue()).toString())
        .isEqualTo("not avro");
    assertThat(letters.get(1).getErrorClass()).isEqualTo("VALIDATION");
    assertThat(letters.get(1).getError()).contains("negative");
    assertThat(d.deadLetters(TopicCatalogue.JOBS_LIFECYCLE)).hasSize(1);
    only(d.decisions(), "good", PlacementOutcome.PLACED);
  }
}
