package io.tideline.notifier.join;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.NoticeJoin;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.notifier.compose.Decisions;
import io.tideline.notifier.join.EvictionJoin.Change;
import io.tideline.notifier.join.EvictionJoin.Explained;
import io.tideline.notifier.join.EvictionJoin.Put;
import io.tideline.notifier.join.EvictionJoin.Remove;
import io.tideline.notifier.join.EvictionJoin.Step;
import io.tideline.notifier.join.EvictionJoin.Unexplained;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The join rule of {@link EvictionJoin}, case by case, with explicit event times. */
class EvictionJoinTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");
  static final Duration HORIZON = Duration.ofHours(1);
  static final Duration WAIT = Duration.ofMinutes(10);

  final EvictionJoin join = new EvictionJoin(HORIZON, WAIT);

  @Test
  void shouldNotifyNothingForADecisionAloneAndDropItAtItsHorizon() {
    PreemptionDecision d = Decisions.preempt("dec-1", T0, List.of(Decisions.victim("a", "u")));

    Step onDecision = join.decision(d);
    Step before = join.advance(T0.plus(HORIZON).minusMillis(1));
    Step at = join.advance(T0.plus(HORIZON));

    assertThat(onDecision.outcomes()).isEmpty();
    assertThat(onDecision.changes()).singleElement().isInstanceOf(Put.class)
        .extracting(Change::key).isEqualTo("decision/dec-1");
    assertThat(before.isEmpty()).isTrue();
    assertThat(at.outcomes()).isEmpty();
    assertThat(at.expiredDecisions()).containsExactly("dec-1");
    assertThat(at.changes()).containsExactly(new Remove("decision/dec-1"));
    assertThat(join.decisionsWaiting()).isZero();
  }

  @Test
  void shouldExplainAnEvictionThatArrivesAfterItsDecision() {
    PreemptionDecision d = Decisions.preempt("dec-1", T0, List.of(Decisions.victim("a", "u")));
    join.decision(d);

    Step s = join.eviction(Decisions.eviction("dec-1", "a", EvictionKind.PREEMPT,
        T0.plusSeconds(2)));

    assertThat(s.outcomes()).singleElement().isInstanceOfSatisfying(Explained.class, x -> {
      assertThat(x.decision().getDecisionId()).isEqualTo("dec-1");
      assertThat(x.victim().getJobId()).isEqualTo("a");
    });
    assertThat(s.changes()).containsExactly(new Remove("decision/dec-1")); // every victim applied
    assertThat(join.decisionsWaiting()).isZero();
  }

  @Test
  void shouldExplainAnEvictionThatArrivesBeforeItsDecision() {
    Eviction e = Decisions.eviction("dec-1", "a", EvictionKind.PREEMPT, T0.plusSeconds(2));
    Step first = join.eviction(e);
    assertThat(first.outcomes()).isEmpty();
    assertThat(first.changes()).singleElement().isInstanceOf(Put.class)
        .extracting(Change::key).isEqualTo("eviction/dec-1/a");

    Step then = join.decision(Decisions.preempt("dec-1", T0, List.of(Decisions.victim("a", "u"))));

    assertThat(then.outcomes()).singleElement().isInstanceOf(Explained.class)
        .extracting(o -> o.eviction().getEvictionId()).isEqualTo("dec-1/a");
    assertThat(then.changes()).containsExactly(new Remove("eviction/dec-1/a")); // never waited
    assertThat(join.evictionsWaiting()).isZero();
    assertThat(join.decisionsWaiting()).isZero();
  }

  @Test
  void shouldKeepADecisionWaitingUntilEveryVictimIsApplied() {
    join.decision(Decisions.preempt("dec-1", T0,
        List.of(Decisions.victim("a", "u"), Decisions.victim("b", "v"))));

    Step first = join.eviction(Decisions.eviction("dec-1", "a", EvictionKind.PREEMPT,
        T0.plusSeconds(1)));
    Step second = join.eviction(Decisions.eviction("dec-1", "b", EvictionKind.PREEMPT,
        T0.plusSeconds(2)));

    assertThat(first.outcomes()).hasSize(1);
    assertThat(first.changes()).singleElement().isInstanceOfSatisfying(Put.class,
        p -> assertThat(p.entry().getAppliedVictims()).containsExactly("a"));
    assertThat(second.outcomes()).singleElement().extracting(o -> o.eviction().getJobId())
        .isEqualTo("b");
    assertThat(second.changes()).containsExactly(new Remove("decision/dec-1"));
  }

  @Test
  void shouldNotifyAnEvictionWithoutItsDecisionUnexplainedOnlyWhenItsWaitEnds() {
    Eviction e = Decisions.eviction("quota-7", "a", EvictionKind.RECLAIM, T0);
    join.eviction(e);

    Step before = join.advance(T0.plus(WAIT).minusMillis(1));
    Step at = join.advance(T0.plus(WAIT));

    assertThat(before.isEmpty()).isTrue();
    assertThat(at.outcomes()).singleElement().isInstanceOf(Unexplained.class)
        .extracting(o -> o.eviction().getEvictionId()).isEqualTo("quota-7/a");
    assertThat(at.changes()).containsExactly(new Remove("eviction/quota-7/a"));
    assertThat(join.advance(T0.plus(HORIZON)).isEmpty()).isTrue(); // once only
  }

  @Test
  void shouldNotifyUnexplainedAnEvictionItsDecisionDoesNotName() {
    join.decision(Decisions.preempt("dec-1", T0, List.of(Decisions.victim("a", "u"))));

    Step s = join.eviction(Decisions.eviction("dec-1", "z", EvictionKind.PREEMPT, T0));

    assertThat(s.outcomes()).singleElement().isInstanceOfSatisfying(Unexplained.class,
        u -> assertThat(u.why()).contains("does not name z"));
    assertThat(join.waitsForEvictionsOf("dec-1")).isTrue(); // a is still to come
  }

  @Test
  void shouldStayOutOfMigrationsAndRefusedDecisions() {
    PreemptionDecision refused = Decisions.preempt("dec-r", T0, List.of(Decisions.victim("a", "u")));
    refused.setOutcome(PreemptionOutcome.REFUSED);

    assertThat(join.eviction(Decisions.eviction("defrag-1", "a", EvictionKind.MIGRATE, T0))
        .isEmpty()).isTrue();
    assertThat(join.decision(refused).isEmpty()).isTrue();
    assertThat(join.advance(T0.plus(Duration.ofDays(1))).isEmpty()).isTrue();
  }

  @Test
  void shouldJoinAsBeforeAfterRestoringWhatItWrote() {
    // 1. One decision with two victims waits (a applied), one eviction waits for another decision.
    Map<String, NoticeJoin> store = new TreeMap<>();
    write(store, join.decision(Decisions.preempt("dec-1", T0,
        List.of(Decisions.victim("a", "u"), Decisions.victim("b", "v")))));
    write(store, join.eviction(Decisions.eviction("dec-1", "a", EvictionKind.PREEMPT, T0)));
    write(store, join.eviction(Decisions.eviction("dec-2", "c", EvictionKind.SHRINK, T0)));

    // 2. A fresh join restores the store and goes on as the first would have.
    EvictionJoin restored = new EvictionJoin(HORIZON, WAIT);
    store.forEach((k, v) -> assertThat(restored.restore(k, v)).isNull());
    Step b = restored.eviction(Decisions.eviction("dec-1", "b", EvictionKind.PREEMPT, T0));
    Step c = restored.decision(Decisions.reclaim("dec-2", "shrink/c", "SHRINK", "Q7 shrink",
        "GPU use under 50%", Decisions.victim("c", "w"), T0));

    assertThat(b.outcomes()).singleElement().isInstanceOf(Explained.class);
    assertThat(b.changes()).containsExactly(new Remove("decision/dec-1"));
    assertThat(c.outcomes()).singleElement().isInstanceOf(Explained.class)
        .extracting(o -> o.eviction().getKind()).isEqualTo(EvictionKind.SHRINK);
    assertThat(restored.decisionsWaiting()).isZero();
    assertThat(restored.evictionsWaiting()).isZero();
  }

  @Test
  void shouldForgetAnEntryItsTombstoneEnds() {
    join.restore("eviction/dec-2/c", NoticeJoin.newBuilder()
        .setEviction(Decisions.eviction("dec-2", "c", EvictionKind.PREEMPT, T0)).build());

    join.forget("eviction/dec-2/c");

    assertThat(join.waitsForDecisionOf("dec-2/c")).isFalse();
    assertThat(join.decision(Decisions.preempt("dec-2", T0, List.of(Decisions.victim("c", "w"))))
        .outcomes()).isEmpty();
  }

  @Test
  void shouldRefuseARestoredEntryWithBothHalvesNeitherOrUnderAnotherKey() {
    PreemptionDecision d = Decisions.preempt("dec-1", T0, List.of(Decisions.victim("a", "u")));
    Eviction e = Decisions.eviction("dec-1", "a", EvictionKind.PREEMPT, T0);

    assertThat(join.restore("decision/dec-1", NoticeJoin.newBuilder().setDecision(d)
        .setEviction(e).build())).contains("exactly one");
    assertThat(join.restore("decision/dec-1", NoticeJoin.newBuilder().build()))
        .contains("exactly one");
    assertThat(join.restore("decision/dec-9", NoticeJoin.newBuilder().setDecision(d).build()))
        .contains("under key decision/dec-9");
    assertThat(join.restore("eviction/x", NoticeJoin.newBuilder().setEviction(e).build()))
        .contains("under key eviction/x");
    assertThat(join.decisionsWaiting() + join.evictionsWaiting()).isZero();
  }

  @Test
  void shouldLeaveACopyAsItWasWhenTheOriginalGoesOn() {
    join.decision(Decisions.preempt("dec-1", T0, List.of(Decisions.victim("a", "u"))));
    EvictionJoin before = join.copy();

    join.eviction(Decisions.eviction("dec-1", "a", EvictionKind.PREEMPT, T0));

    assertThat(join.waitsForEvictionsOf("dec-1")).isFalse();
    assertThat(before.waitsForEvictionsOf("dec-1")).isTrue();
    assertThat(before.eviction(Decisions.eviction("dec-1", "a", EvictionKind.PREEMPT, T0))
        .outcomes()).singleElement().isInstanceOf(Explained.class);
  }

  @Test
  void shouldExpireAnEntryWhoseDeadlineComesBeforeThoseAlreadyWaiting() {
    join.eviction(Decisions.eviction("dec-late", "a", EvictionKind.PREEMPT, T0));
    assertThat(join.advance(T0).isEmpty()).isTrue();

    // A decision read late (decided two hours earlier) is past its horizon at once.
    join.decision(Decisions.preempt("dec-early", T0.minus(Duration.ofHours(2)),
        List.of(Decisions.victim("b", "u"))));
    Step s = join.advance(T0);

    assertThat(s.expiredDecisions()).containsExactly("dec-early");
    assertThat(s.outcomes()).isEmpty();
    assertThat(join.waitsForDecisionOf("dec-late/a")).isTrue();
  }

  @Test
  void shouldRefuseNegativeWaits() {
    assertThatThrownBy(() -> new EvictionJoin(Duration.ofMinutes(-1), WAIT))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
  }

  private static void write(Map<String, NoticeJoin> store, Step s) {
    for (Change c : s.changes()) {
      if (c instanceof Put p) {
        store.put(p.key(), p.entry());
      } else {
        store.remove(c.key());
      }
    }
  }
}
