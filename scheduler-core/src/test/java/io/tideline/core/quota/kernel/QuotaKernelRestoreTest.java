package io.tideline.core.quota.kernel;

import static io.tideline.core.quota.QuotaTestKit.T0;
import static io.tideline.core.quota.QuotaTestKit.job;
import static io.tideline.core.quota.kernel.QuotaKernelTest.research;
import static io.tideline.core.quota.kernel.QuotaKernelTest.search;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.kernel.Inbox;
import io.tideline.core.quota.kernel.QuotaInput.Lifecycle.Kind;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A state rebuilt from its persisted parts — the tables, the definition, the clock, the waiting
 * inputs — is the running state exactly, derived ledger, sets and floors included, and decides the
 * next inputs bit for bit as the uninterrupted kernel does.
 */
class QuotaKernelRestoreTest {

  /** A busy first part: borrowers, a guarantee reclaim in flight, a peak, samples, bills. */
  static void firstPart(KernelDriver k) {
    k.submit(research("r1", 8, T0));
    k.tick(T0.plusSeconds(1));
    k.submit(research("r2", 4, T0.plusSeconds(2)));
    k.submit(job("idle").gpus(1).expectedSeconds(7200).submittedAt(T0.plusSeconds(2)).build());
    k.tick(T0.plusSeconds(3));
    k.started("r1", T0.plusSeconds(4));
    k.started("idle", T0.plusSeconds(4));
    k.peak("search-api", 3, T0.plusSeconds(5)); // the pool grows by 1: r2 fits
    k.tick(T0.plusSeconds(6));
    k.started("r2", T0.plusSeconds(7));
    for (int m = 0; m < 66; m++) {
      k.sample("n1/0", "idle", 0.02, T0.plusSeconds(10).plus(Duration.ofMinutes(m)));
      if (m % 10 == 0) {
        k.tick(T0.plusSeconds(11).plus(Duration.ofMinutes(m)));
      }
    }
    k.submit(search("g1", 3, T0.plus(Duration.ofMinutes(66))));
    k.tick(T0.plus(Duration.ofMinutes(66)).plusSeconds(1)); // g1 admitted, r2 asked for
    k.completed("r1", T0.plus(Duration.ofMinutes(70)));
    k.tick(T0.plus(Duration.ofMinutes(70)).plusSeconds(1));
    // left waiting in the inbox at the "crash"
    k.submit(search("w1", 2, T0.plus(Duration.ofMinutes(70)).plusSeconds(2)));
    k.sample("n1/0", "idle", 0.01, T0.plus(Duration.ofMinutes(70)).plusSeconds(2));
  }

  /** What follows: the borrower is preempted, more jobs, hours of metering. */
  static void secondPart(Consumer<QuotaInput> offer) {
    Instant t = T0.plus(Duration.ofMinutes(70)).plusSeconds(3);
    offer.accept(new QuotaInput.Lifecycle("r2", Kind.PREEMPTED, t, 0));
    offer.accept(new QuotaInput.Submission(research("r3", 2, t)));
    for (int i = 1; i <= 40; i++) {
      offer.accept(new QuotaInput.Clock(new io.tideline.core.kernel.Tick(t.plus(Duration
          .ofMinutes(5L * i)), KernelDriver.CLUSTER)));
    }
  }

  static QuotaKernelState restored(KernelDriver k) {
    QuotaKernelState s = k.state;
    Map<Long, QuotaInput.Buffered> inbox = new TreeMap<>();
    for (Inbox.Entry<QuotaInput.Buffered> e : s.inbox().entries()) {
      inbox.put(e.position().seq(), e.input());
    }
    return QuotaKernelState.restore(k.kernel.config().quota(), s.definition(), s.lastTick(),
        s.inbox().nextSeq(), s.jobs().asMap(), s.samples().asMap(), s.billing().asMap(),
        s.history().asMap(), s.peaks().asMap(), s.reclaims().asMap(), inbox);
  }

  @Test
  void shouldRestoreTheRunningStateExactlyAndDecideTheSameAfterwards() {
    KernelDriver running = new KernelDriver();
    firstPart(running);
    assertThat(running.state.reclaims().has("g1")).as("a reclaim in flight").isTrue();
    assertThat(running.effects).anyMatch(e -> e instanceof QuotaEffect.IdleReclaimRecommended);
    assertThat(running.state.inbox().size()).isEqualTo(2);

    KernelDriver resumed = new KernelDriver();
    resumed.state = restored(running);

    assertThat(resumed.state).isEqualTo(running.state);
    assertThat(resumed.state.ledger().decayedGpuMillis(running.state.lastTick()))
        .isEqualTo(running.state.ledger().decayedGpuMillis(running.state.lastTick()));
    int before = running.effects.size();
    secondPart(running::offer);
    secondPart(resumed::offer);
    List<QuotaEffect> expected = running.effects.subList(before, running.effects.size());
    assertThat(resumed.effects).isNotEmpty().isEqualTo(expected);
    assertThat(resumed.state).isEqualTo(running.state);
  }
}
