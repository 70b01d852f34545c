package io.tideline.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.cluster.Node;
import io.tideline.core.cluster.SwitchPath;
import io.tideline.core.cluster.TestJobs;
import io.tideline.core.cluster.state.Admission;
import io.tideline.core.cluster.state.LedgerChange;
import io.tideline.core.cluster.state.NodeRecord;
import io.tideline.core.cluster.state.NodeStatus;
import io.tideline.core.cluster.state.JobFacts.Event;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.Resources;
import io.tideline.core.quota.Verdict;
import io.tideline.core.scheduling.PlacementEffect.Changed;
import io.tideline.core.scheduling.PlacementEffect.Decided;
import io.tideline.core.scheduling.PlacementEffect.Outcome;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The placement kernel's cycle contract and its basic scenarios. */
class PlacementKernelTest {

  static final Instant T0 = Instant.parse("2026-11-02T14:00:00Z");

  private static Instant ms(long millis) {
    return T0.plusMillis(millis);
  }

  @Test
  void shouldDecideNothingUntilTheTickAfterTheInputs() {
    KernelDriver k = new KernelDriver().nodes(2, T0);
    JobRequest job = TestJobs.training("j1", 8).submittedAt(T0).build();
    k.submit(job).admit(job, Verdict.SHARED, T0);
    assertThat(k.effects).isEmpty();
    // a tick at the inputs' own time does not see them (strictly before)
    k.tick(T0);
    assertThat(k.decisions("j1")).isEmpty();
    k.tick(ms(1));
    assertThat(k.decisions("j1")).extracting(Decided::outcome).containsExactly(Outcome.PLACED);
    assertThat(k.decisions("j1").get(0).at()).isEqualTo(ms(1));
    assertThat(k.state.cluster().runs("j1")).isTrue();
  }

  @Test
  void shouldDecideTheSameWhateverOrderTheInputsArrivedIn() {
    JobRequest a = TestJobs.training("a", 8).submittedAt(T0).build();
    JobRequest b = TestJobs.training("b", 8).submittedAt(T0).build();
    KernelDriver one = new KernelDriver().nodes(1, T0);
    one.submit(a).submit(b).admit(a, Verdict.SHARED, ms(1)).admit(b, Verdict.SHARED, ms(1));
    KernelDriver two = new KernelDriver();
    two.admit(b, Verdict.SHARED, ms(1)).submit(b).admit(a, Verdict.SHARED, ms(1)).nodes(1, T0)
        .submit(a);
    List<PlacementEffect> e1 = one.tick(ms(2));
    List<PlacementEffect> e2 = two.tick(ms(2));
    assertThat(e2).isEqualTo(e1);
    assertThat(one.decisions("a")).extracting(Decided::outcome).containsExactly(Outcome.PLACED);
    assertThat(one.decisions("b")).extracting(Decided::outcome).containsExactly(Outcome.QUEUED);
  }

  @Test
  void shouldReleaseAndQueueAgainWithABoostWhenAJobIsPreempted() {
    KernelDriver k = new KernelDriver().nodes(1, T0);
    JobRequest job = TestJobs.training("j1", 8).submittedAt(T0).build();
    k.submit(job).admit(job, Verdict.SHARED, T0).tick(ms(1));
    k.lifecycle("j1", Event.PREEMPTED, ms(5)).tick(ms(6));
    assertThat(k.decisions("j1")).extracting(Decided::outcome)
        .containsExactly(Outcome.PLACED, Outcome.RELEASED);
    // P3: the old verdict predates the preemption; only quota's fresh verdict queues it again
    k.tick(ms(7));
    assertThat(k.decisions("j1")).hasSize(2);
    k.admit(job, Verdict.SHARED, ms(7)).tick(ms(8));
    assertThat(k.decisions("j1")).extracting(Decided::outcome)
        .containsExactly(Outcome.PLACED, Outcome.RELEASED, Outcome.PLACED);
    assertThat(k.state.queue().get("j1").boost()).isEqualTo(1);
  }

  @Test
  void shouldNumberEveryLedgerChangeAndPublishIt() {
    KernelDriver k = new KernelDriver().nodes(2, T0);
    JobRequest a = TestJobs.training("a", 8).submittedAt(T0).build();
    k.submit(a).admit(a, Verdict.SHARED, T0).tick(ms(1));
    k.lifecycle("a", Event.COMPLETED, ms(2)).tick(ms(3));
    assertThat(k.all(Changed.class)).extracting(c -> c.change().version()).containsExactly(1L, 2L);
    assertThat(k.state.cluster().version()).isEqualTo(2);
    assertThat(k.state.cluster().knows("a")).isFalse();
  }

  @Test
  void shouldPlaceAGpulessJobsPodsOnAGpuNodeChargeTheirCpuAndFreeItWhenTheJobEnds() {
    KernelDriver k = new KernelDriver();
    for (String id : List.of("n01", "n02")) {
      k.offer(new PlacementInput.Inventory(new NodeRecord(new Node(id, "H100", 8, id,
          new SwitchPath("dsw1", "psw1", "asw1"), Resources.of(64_000, 512L << 30)),
          NodeStatus.ACTIVE, T0)));
    }
    // four pods of 20 cores: three fit on a 64-core node, so the fourth goes to the other
    JobRequest etl = TestJobs.pods("etl", 4, Resources.of(20_000, 8L << 30)).submittedAt(T0).build();
    k.submit(etl).admit(etl, Verdict.SHARED, T0).tick(ms(1));

    Decided placed = k.decisions("etl").get(0);
    assertThat(placed.outcome()).isEqualTo(Outcome.PLACED);
    assertThat(placed.assignments()).isEmpty();
    assertThat(placed.workers()).containsExactly(Map.entry("n01", 3), Map.entry("n02", 1));
    assertThat(k.all(Changed.class)).extracting(c -> ((LedgerChange.Bound) c.change()).workers())
        .containsExactly(placed.workers());
    assertThat(k.state.cluster().snapshot().ledger("n01").allocated().cpuMillis()).isEqualTo(60_000);
    assertThat(k.state.cluster().snapshot().ledger("n01").idleGpus()).isEqualTo(8);

    k.lifecycle("etl", Event.COMPLETED, ms(2)).tick(ms(3));
    assertThat(k.state.cluster().snapshot().ledger("n01").allocated().cpuMillis()).isZero();
  }

  @Test
  void shouldLetAGpulessJobWaitForCpuRatherThanAskPreemption() {
    // even where every job may ask preemption (the twin's naive baseline), a GPU-less one does not
    PlacementPolicy p = PlacementPolicy.defaults(KernelDriver.CLUSTER);
    KernelDriver k = new KernelDriver(p.with(PlacementPolicy.Rights.EVERY_JOB,
        p.inferencePartition(), p.defrag(), p.placement()));
    k.offer(new PlacementInput.Inventory(new NodeRecord(new Node("n01", "H100", 8, "n01",
        new SwitchPath("dsw1", "psw1", "asw1"), Resources.of(16_000, 0)), NodeStatus.ACTIVE, T0)));
    JobRequest big = TestJobs.pods("big", 1, Resources.of(32_000, 0)).submittedAt(T0).build();
    k.submit(big).admit(big, Verdict.GUARANTEED, T0).tick(ms(1));

    assertThat(k.decisions("big")).extracting(Decided::outcome).containsExactly(Outcome.QUEUED);
    assertThat(k.all(PlacementEffect.RequestPreemption.class)).isEmpty();
  }

  @Test
  void shouldRefuseAnInputFarAheadOfTheClock() {
    KernelDriver k = new KernelDriver().nodes(1, T0);
    k.tick(ms(1));
    JobRequest future = TestJobs.training("f", 1).submittedAt(Instant.parse("2300-01-01T00:00:00Z"))
        .build();
    List<PlacementEffect> e = k.offer(new PlacementInput.Submission(future));
    assertThat(e).singleElement().isInstanceOf(PlacementEffect.Refused.class);
    assertThat(k.state.inbox().isEmpty()).isTrue();
  }

  @Test
  void shouldKeepWhatArrivesDuringAClockOutageAndPlaceItWhenTheClockTicksAgain() {
    KernelDriver k = new KernelDriver().nodes(1, T0);
    k.tick(ms(1));
    // the cluster clock stalls for two hours; a job is submitted and admitted meanwhile
    Instant during = T0.plus(java.time.Duration.ofHours(1));
    JobRequest job = TestJobs.training("late", 8).submittedAt(during).build();
    k.submit(job).admit(job, Verdict.SHARED, during);
    assertThat(k.all(PlacementEffect.Refused.class)).as("nothing refused").isEmpty();

    k.tick(T0.plus(java.time.Duration.ofHours(2)));

    assertThat(k.decisions("late")).extracting(Decided::outcome).containsExactly(Outcome.PLACED);
  }

  @Test
  void shouldNeverPlaceMoreGpusThanTheVerdictAdmitted() {
    KernelDriver k = new KernelDriver().nodes(8, T0);
    JobRequest small = TestJobs.training("x", 1).submittedAt(T0).build();
    JobRequest big = TestJobs.training("x", 64).submittedAt(T0).build();
    k.submit(small).admit(small, Verdict.SHARED, T0);
    // a second submission under the same id with other content is refused as a conflict
    List<PlacementEffect> e = k.offer(new PlacementInput.Submission(big));
    k.tick(ms(1));
    assertThat(k.all(PlacementEffect.Refused.class)).hasSize(1);
    assertThat(k.state.cluster().bindings().get("x").gpuShare()).isEqualTo(1.0);
    assertThat(e).isEmpty();
  }

  /**
   * Issue #16, finding 4, as the issue ran it: job X with 1 GPU on a model the fleet lacks (it
   * queues under its 1-GPU verdict), then X again with 64 GPUs a tick later.
   */
  @Test
  void shouldKeepAQueuedJobWhenAResubmissionWithMoreGpusArrivesAndPlaceOnlyWhatWasAdmitted() {
    KernelDriver k = new KernelDriver().nodes(8, T0);
    JobRequest small = TestJobs.training("x", 1).models("B200").submittedAt(T0).build();
    k.submit(small).admit(small, Verdict.SHARED, T0).tick(ms(1));
    assertThat(k.decisions("x")).extracting(Decided::outcome).containsExactly(Outcome.QUEUED);

    JobRequest big = TestJobs.training("x", 64).workers(8).nodes(8).submittedAt(ms(2)).build();
    k.submit(big).tick(ms(3));

    assertThat(k.all(PlacementEffect.Refused.class)).singleElement()
        .satisfies(r -> assertThat(r.reason()).contains("already known with other content")
            .contains("gpuCount: known 1, resubmitted 64"));
    assertThat(k.state.cluster().request("x").gpuCount()).isEqualTo(1);
    assertThat(k.decisions("x")).extracting(Decided::outcome).containsExactly(Outcome.QUEUED);
    // the model the small job asked for arrives: X runs with the GPU it was admitted for
    k.offer(new PlacementInput.Inventory(new NodeRecord(new Node("b01", "B200", 8, "b01",
        new SwitchPath("dsw1", "psw1", "asw9")), NodeStatus.ACTIVE, ms(4))));
    k.tick(ms(5));
    assertThat(k.decisions("x")).extracting(Decided::outcome)
        .containsExactly(Outcome.QUEUED, Outcome.PLACED);
    assertThat(k.decisions("x").get(1).assignments()).extracting(a -> a.nodeId())
        .containsExactly("b01");
    assertThat(k.state.cluster().bindings().get("x").gpuShare()).isEqualTo(1.0);
  }

  /**
   * The other order: placement knows a 64-GPU submission of X while quota admitted 1 GPU (quota
   * saw another submission first). Placement never places more than the verdict admitted.
   */
  @Test
  void shouldNeverPlaceAKnownSubmissionThatAsksMoreGpusThanItsVerdictAdmitted() {
    KernelDriver k = new KernelDriver().nodes(8, T0);
    JobRequest big = TestJobs.training("x", 64).workers(8).nodes(8).submittedAt(T0).build();
    k.submit(big).offer(new PlacementInput.Verdict("x", new Admission(Verdict.SHARED, 1.0, true,
        false, 0, "q", T0)));
    k.tick(ms(1));
    k.tick(ms(2));

    assertThat(k.decisions("x")).singleElement().satisfies(d -> {
      assertThat(d.outcome()).isEqualTo(Outcome.QUEUED);
      assertThat(d.trace()).anySatisfy(t -> assertThat(t.rule()).isEqualTo("Q1 admitted GPUs"));
    });
    assertThat(k.state.cluster().runs("x")).isFalse();
  }

  @Test
  void shouldGiveEarlyReleasedGpusToAnyone() {
    KernelDriver k = new KernelDriver().nodes(1, T0);
    k.offer(new PlacementInput.ReservationCommand("r1", "svc", PlacementInput.ReservationCommand
        .Action.RESERVE, 8, ms(5), T0.plusSeconds(3600), ms(5)));
    k.tick(ms(6));
    JobRequest steady = TestJobs.training("steady", 4).preemptible(false).submittedAt(ms(10))
        .build();
    k.submit(steady).admit(steady, Verdict.GUARANTEED, ms(10)).tick(ms(11));
    assertThat(k.decisions("steady")).extracting(Decided::outcome)
        .containsExactly(Outcome.QUEUED);
    k.offer(new PlacementInput.ReservationCommand("svc@x/RELEASE", "svc", PlacementInput
        .ReservationCommand.Action.RELEASE, 4, ms(3000), ms(3000), ms(3000)));
    k.tick(ms(3001));
    System.out.println(k.state.cluster().reservations().asMap());
    assertThat(k.decisions("steady")).extracting(Decided::outcome)
        .containsExactly(Outcome.QUEUED, Outcome.PLACED);
  }
}
