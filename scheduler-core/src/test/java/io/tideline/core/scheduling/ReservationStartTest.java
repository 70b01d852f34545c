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
}
