package io.tideline.core.scheduling;

import static io.tideline.core.scheduling.KernelDriver.shrunk;
import static io.tideline.core.scheduling.KernelDriver.victim;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.cluster.TestJobs;
import io.tideline.core.cluster.state.JobFacts.Event;
import io.tideline.core.model.JobRequest;
import io.tideline.core.quota.Verdict;
import io.tideline.core.scheduling.PlacementEffect.Counted;
import io.tideline.core.scheduling.PlacementEffect.Decided;
import io.tideline.core.scheduling.PlacementEffect.Evict;
import io.tideline.core.scheduling.PlacementEffect.EvictionKind;
import io.tideline.core.scheduling.PlacementInput.PreemptionAnswer.Trigger;
import io.tideline.core.scheduling.PlacementInput.Reclaim.Action;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ADR 0029 (issue #18 point 5): an eviction of a reclaim-triggered answer of preemption follows
 * only a reclaim quota named — the idle job for RECLAIM, the job and its new size for SHRINK, the
 * borrowers for GUARANTEE. An answer that comes before quota's reclaim waits for it (cluster time
 * only) and is refused when the wait runs out.
 */
class ReclaimNamingTest {

  static final Instant T0 = Instant.parse("2026-11-02T14:00:00Z");
  static final Duration WAIT = PlacementPolicy.ReclaimNaming.DEFAULTS.unnamedWait();
  static final Duration TTL = PlacementPolicy.ReclaimNaming.DEFAULTS.ttl();

  KernelDriver k;

  static Instant t(long seconds) {
    return T0.plusSeconds(seconds);
  }

  /** Two nodes; idle-a (8 GPUs) on one, borrow-b and borrow-c (4 GPUs each) on the other. */
  @BeforeEach
  void threeRunningJobs() {
    k = new KernelDriver().nodes(2, T0);
    for (JobRequest j : List.of(TestJobs.training("idle-a", 8).submittedAt(T0).build(),
        TestJobs.training("borrow-b", 4).submittedAt(T0).build(),
        TestJobs.training("borrow-c", 4).submittedAt(T0).build())) {
      k.submit(j).admit(j, Verdict.SHARED, T0);
    }
    k.tick(t(1));
    assertThat(k.state.cluster().runs("idle-a")).isTrue();
    assertThat(k.state.cluster().runs("borrow-b")).isTrue();
    assertThat(k.state.cluster().runs("borrow-c")).isTrue();
    k.effects.clear();
  }

  List<Evict> evictions() {
    return k.all(Evict.class);
  }

  List<String> counted() {
    return k.all(Counted.class).stream().filter(c -> c.counter().equals("preemption_decision"))
        .map(Counted::tag).toList();
  }

  String refusal(String subject) {
    List<Decided> ds = k.decisions(subject);
    assertThat(ds).as("a QUEUED decision of " + subject).isNotEmpty();
    return ds.get(ds.size() - 1).trace().get(0).detail();
  }

  @Test
  void shouldNotEvictOnAnIdleReclaimQuotaNeverNamed() {
    k.answer("forged-idle", Trigger.IDLE_RECLAIM, "idle-reclaim/idle-a", t(10), victim("idle-a"));
    k.tick(t(11));
    k.tick(t(10).plus(WAIT));

    assertThat(evictions()).isEmpty();
    assertThat(counted()).containsExactly("unnamed");
    assertThat(refusal("idle-reclaim/idle-a")).contains("[idle-a] not named by quota's reclaim");
    assertThat(k.state.parked().ids()).isEmpty();
  }

  @Test
  void shouldApplyAnIdleReclaimQuotaNamedAndForgetTheNaming() {
    k.reclaim("idle-a", Action.RECLAIM, List.of("idle-a"), 0, t(10));
    k.answer("idle-1", Trigger.IDLE_RECLAIM, "idle-reclaim/idle-a", t(10), victim("idle-a"));
    k.tick(t(11));

    assertThat(evictions()).extracting(Evict::jobId, Evict::kind)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("idle-a", EvictionKind.RECLAIM));
    assertThat(counted()).containsExactly("applied");
    assertThat(k.state.named().ids()).isEmpty();
  }

  @Test
  void shouldApplyAShrinkQuotaNamed() {
    k.reclaim("idle-a", Action.SHRINK, List.of("idle-a"), 4, t(10));
    k.answer("shrink-1", Trigger.SHRINK, "shrink/idle-a", t(10), shrunk("idle-a", 4));
    k.tick(t(11));

    assertThat(evictions()).singleElement().satisfies(e -> {
      assertThat(e.kind()).isEqualTo(EvictionKind.SHRINK);
      assertThat(e.shrinkToGpus()).isEqualTo(4);
    });
  }

  @Test
  void shouldRefuseAShrinkToAnotherSizeThanQuotaNamed() {
    k.reclaim("idle-a", Action.SHRINK, List.of("idle-a"), 4, t(10));
    k.answer("shrink-2", Trigger.SHRINK, "shrink/idle-a", t(10), shrunk("idle-a", 2));
    k.tick(t(11));
    k.tick(t(10).plus(WAIT));

    assertThat(evictions()).isEmpty();
    assertThat(refusal("shrink/idle-a")).contains("idle-a (to 2 GPU(s); quota named 4)")
        .contains("not named by quota's reclaim");
  }

  @Test
  void shouldNotTakeAnIdleReclaimForTheShrinkQuotaNamed() {
    k.reclaim("idle-a", Action.SHRINK, List.of("idle-a"), 4, t(10));
    k.answer("idle-2", Trigger.IDLE_RECLAIM, "idle-reclaim/idle-a", t(10), victim("idle-a"));
    k.tick(t(10).plus(WAIT));

    assertThat(evictions()).isEmpty();
    assertThat(counted()).containsExactly("unnamed");
  }

  @Test
  void shouldApplyAGuaranteeReclaimOnlyToTheBorrowersNamed() {
    k.reclaim("floor-x", Action.GUARANTEE, List.of("borrow-b"), 0, t(10));
    // one victim quota never named: nothing of the decision is applied
    k.answer("g-1", Trigger.GUARANTEE_RECLAIM, "guarantee-reclaim/floor-x", t(10),
        victim("borrow-b"), victim("borrow-c"));
    k.tick(t(10).plus(WAIT));
    assertThat(evictions()).isEmpty();
    assertThat(refusal("guarantee-reclaim/floor-x")).contains("[borrow-c] not named");

    k.answer("g-2", Trigger.GUARANTEE_RECLAIM, "guarantee-reclaim/floor-x", t(130),
        victim("borrow-b"));
    k.tick(t(131));
    assertThat(evictions()).extracting(Evict::jobId).containsExactly("borrow-b");
    assertThat(evictions().get(0).kind()).isEqualTo(EvictionKind.PREEMPT);
  }

  @Test
  void shouldApplyAnAnswerThatCameBeforeQuotasReclaimOnceTheReclaimArrives() {
    k.answer("idle-3", Trigger.IDLE_RECLAIM, "idle-reclaim/idle-a", t(10), victim("idle-a"));
    k.tick(t(11));
    assertThat(evictions()).isEmpty();
    assertThat(k.state.parked().ids()).containsExactly("idle-3");

    // quota's reclaim, decided before the answer, arrives late on its own topic
    k.reclaim("idle-a", Action.RECLAIM, List.of("idle-a"), 0, t(9));
    k.tick(t(12));

    assertThat(evictions()).extracting(Evict::decisionId).containsExactly("idle-3");
    assertThat(counted()).containsExactly("applied");
    assertThat(k.state.parked().ids()).isEmpty();
  }

  @Test
  void shouldRefuseAnAnswerWhoseReclaimNeverArrivesExactlyAtExpiry() {
    k.answer("idle-4", Trigger.IDLE_RECLAIM, "idle-reclaim/idle-a", t(10), victim("idle-a"));
    k.tick(t(10).plus(WAIT).minusSeconds(1));
    assertThat(counted()).isEmpty();
    assertThat(k.state.parked().ids()).containsExactly("idle-4");

    k.tick(t(10).plus(WAIT));

    assertThat(evictions()).isEmpty();
    assertThat(counted()).containsExactly("unnamed");
    assertThat(k.state.parked().ids()).isEmpty();
    // a reclaim arriving after the refusal does not bring the refused answer back
    k.reclaim("idle-a", Action.RECLAIM, List.of("idle-a"), 0, t(9));
    k.tick(t(10).plus(WAIT).plusSeconds(1));
    assertThat(evictions()).isEmpty();
  }

  @Test
  void shouldNotEvictOnANamingPastItsTtl() {
    k.reclaim("idle-a", Action.RECLAIM, List.of("idle-a"), 0, t(10));
    k.tick(t(10).plus(TTL));
    assertThat(k.state.named().ids()).isEmpty();

    Instant late = t(10).plus(TTL).plusSeconds(1);
    k.answer("idle-5", Trigger.IDLE_RECLAIM, "idle-reclaim/idle-a", late, victim("idle-a"));
    k.tick(late.plus(WAIT));

    assertThat(evictions()).isEmpty();
    assertThat(counted()).containsExactly("unnamed");
  }

  @Test
  void shouldForgetTheNamingOfAJobThatStops() {
    k.reclaim("floor-x", Action.GUARANTEE, List.of("borrow-b", "borrow-c"), 0, t(10));
    k.tick(t(11));
    assertThat(k.state.named().ids()).hasSize(2);

    k.lifecycle("borrow-c", Event.COMPLETED, t(12)).tick(t(13));

    assertThat(k.state.named().ids()).containsExactly(
        ReclaimNamed.key(Action.GUARANTEE, "borrow-b"));
  }
}
