package io.tideline.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.cluster.TestJobs;
import io.tideline.core.cluster.state.JobFacts.Event;
import io.tideline.core.model.JobRequest;
import io.tideline.core.quota.Verdict;
import io.tideline.core.scheduling.PlacementEffect.RequestPreemption;
import io.tideline.core.scheduling.PlacementInput.AnswerVictim;
import io.tideline.core.scheduling.PlacementInput.PreemptionAnswer;
import io.tideline.core.scheduling.PlacementInput.ReservationCommand;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rule 4 of {@link ReservationRules}: what a starting reservation asks of preemption. */
class ReservationStartTest {

  static final Instant T0 = Instant.parse("2026-11-02T00:00:00Z");
  static final Instant START = T0.plusSeconds(900);

  private static Instant ms(long millis) {
    return START.plusMillis(millis);
  }

  /**
   * Two services reserved a GPU each on the same 8-GPU training job; both start at once.
   * Preemption evicts the job for the first; the second's plan names the same victim and is
   * stale. The second must then wait for the eviction under way — its GPU comes back when the job
   * stops — not ask again at every cycle and be refused again (the ping-pong that ran the twin to
   * its micro-tick cap, and made parity depend on how fast a broker answers).
   */
  @Test
  void shouldWaitForAnEvictionUnderWayInsteadOfAskingAgainAtEveryCycle() {
    KernelDriver k = new KernelDriver().nodes(1, T0);
    JobRequest big = TestJobs.training("big", 8).submittedAt(T0).build();
    k.submit(big).admit(big, Verdict.SHARED, T0).tick(T0.plusMillis(1));
    assertThat(k.state.cluster().runs("big")).isTrue();
    for (String svc : List.of("svc-a", "svc-b")) {
      k.offer(new ReservationCommand(svc + "@start", svc, ReservationCommand.Action.RESERVE, 1,
          START, START.plusSeconds(3600), T0.plusSeconds(10)));
    }
    k.tick(T0.plusSeconds(11));

    k.tick(ms(1));
    List<RequestPreemption> asked = k.all(RequestPreemption.class);
    assertThat(asked).extracting(RequestPreemption::subject)
        .containsExactly("reservation/svc-a@start", "reservation/svc-b@start");
    for (RequestPreemption r : asked) {
      k.offer(new PreemptionAnswer(r.requestId() + "/decision", r.requestId(), r.subject(),
          PreemptionAnswer.Trigger.RESERVATION_START, true, List.of(new AnswerVictim("big", 0)),
          10, r.ledgerVersion(), ms(1), KernelDriver.CLUSTER));
    }
    k.tick(ms(2));
    assertThat(k.state.evicting().get("big")).as("evicted for the first").isNotNull()
        .satisfies(e -> assertThat(e.reservationId()).isEqualTo("svc-a@start"));

    for (int t = 3; t < 30; t++) {
      k.tick(ms(t));
    }
    assertThat(k.all(RequestPreemption.class)).as("no second request while big is leaving")
        .hasSize(2);

    k.lifecycle("big", Event.PREEMPTED, ms(40)).tick(ms(41));
    k.tick(ms(42));
    assertThat(k.all(RequestPreemption.class)).as("nothing left to ask once it stopped")
        .hasSize(2);
    assertThat(k.state.cluster().reservations().get("svc-b@start").gpus())
        .as("the second service keeps its GPU").hasSize(1);
  }

  /** Four preemptible 2-GPU training jobs fill the only node, admitted and running at T0. */
  private static KernelDriver nodeFullOfTraining() {
    KernelDriver k = new KernelDriver().nodes(1, T0);
    for (int j = 1; j <= 4; j++) {
      JobRequest t = TestJobs.training("train-" + j, 2).submittedAt(T0).build();
      k.submit(t).admit(t, Verdict.SHARED, T0);
    }
    k.tick(T0.plusMillis(1));
    assertThat(k.state.cluster().bindings().size()).isEqualTo(4);
    return k;
  }

  /**
   * ADR 0039: the reservation holds the whole node for the forecast's p90 (8 GPUs), but the
   * median expects the rise to use 3. The start asks preemption for those 3 — every holder is a
   * candidate, preemption picks the cheapest — not for all 8: the upper tail stays with its
   * holders until an instance of the service waits for it.
   */
  @Test
  void shouldAskOnlyForTheGpusTheRiseIsExpectedToUse() {
    KernelDriver k = nodeFullOfTraining();
    k.offer(new ReservationCommand("chat@start", "chat", ReservationCommand.Action.RESERVE, 8,
        START, START.plusSeconds(3600), T0.plusSeconds(10), 3));
    k.tick(T0.plusSeconds(11));
    k.tick(ms(1));

    assertThat(k.all(RequestPreemption.class)).singleElement().satisfies(r -> {
      assertThat(r.shape().gpuCount()).as("the expected part").isEqualTo(3);
      assertThat(r.holders()).as("every holder a candidate").containsOnlyKeys("train-1",
          "train-2", "train-3", "train-4");
    });
  }

  /** The part the rise is expected to use is already idle: the start evicts nobody. */
  @Test
  void shouldEvictNobodyWhenTheExpectedPartIsAlreadyFree() {
    KernelDriver k = nodeFullOfTraining();
    k.lifecycle("train-1", Event.COMPLETED, T0.plusSeconds(5))
        .lifecycle("train-2", Event.COMPLETED, T0.plusSeconds(5));
    k.tick(T0.plusSeconds(6));
    k.offer(new ReservationCommand("chat@start", "chat", ReservationCommand.Action.RESERVE, 8,
        START, START.plusSeconds(3600), T0.plusSeconds(10), 4));
    k.tick(T0.plusSeconds(11));
    k.tick(ms(1));
    k.tick(ms(2));

    assertThat(k.all(RequestPreemption.class)).as("4 expected, 4 idle").isEmpty();
    assertThat(k.state.cluster().runs("train-3")).isTrue();
    assertThat(k.state.cluster().reservations().get("chat@start").gpus()).hasSize(8);
  }

  /** Without an expected part (a record from before the field) the whole reservation is asked. */
  @Test
  void shouldAskForEveryHeldGpuWhenTheForecasterDidNotSayWhatIsExpected() {
    KernelDriver k = nodeFullOfTraining();
    k.offer(new ReservationCommand("chat@start", "chat", ReservationCommand.Action.RESERVE, 8,
        START, START.plusSeconds(3600), T0.plusSeconds(10)));
    k.tick(T0.plusSeconds(11));
    k.tick(ms(1));

    assertThat(k.all(RequestPreemption.class)).singleElement()
        .satisfies(r -> assertThat(r.shape().gpuCount()).isEqualTo(8));
  }

  /**
   * ADR 0039: nothing was expected (the median saw no rise), so the start evicted nobody. Then an
   * instance of the service arrives and no GPU is idle: once a pass could not place it, the start
   * asks preemption for its one GPU among the reservation's holders — once for that ledger
   * version, not at every cycle.
   */
  @Test
  void shouldReclaimTheUpperTailOnlyWhenAnInstanceOfTheServiceWaits() {
    KernelDriver k = nodeFullOfTraining();
    k.offer(new ReservationCommand("ranker@start", "ranker", ReservationCommand.Action.RESERVE,
        8, START, START.plusSeconds(3600), T0.plusSeconds(10), 0));
    k.tick(T0.plusSeconds(11));
    k.tick(ms(1));
    k.tick(ms(2));
    assertThat(k.all(RequestPreemption.class)).as("nothing expected, nobody waits").isEmpty();

    JobRequest instance = TestJobs.instance("ranker-1", 1.0).submittedAt(ms(3)).build();
    k.submit(instance).admit(instance, Verdict.SHARED, ms(3));
    k.tick(ms(4));
    for (int t = 5; t < 15; t++) {
      k.tick(ms(t));
    }
    assertThat(k.all(RequestPreemption.class)).as("one request for the waiting instance")
        .singleElement().satisfies(r -> {
          assertThat(r.subject()).isEqualTo("reservation/ranker@start");
          assertThat(r.shape().gpuCount()).isEqualTo(1);
          assertThat(r.holders()).hasSize(4);
        });

    RequestPreemption r = k.all(RequestPreemption.class).get(0);
    k.offer(new PreemptionAnswer(r.requestId() + "/decision", r.requestId(), r.subject(),
        PreemptionAnswer.Trigger.RESERVATION_START, false, List.of(), 0, r.ledgerVersion(),
        ms(15), KernelDriver.CLUSTER));
    for (int t = 16; t < 30; t++) {
      k.tick(ms(t));
    }
    assertThat(k.all(RequestPreemption.class)).as("refused: not asked again on the same ledger")
        .hasSize(1);
  }
}
