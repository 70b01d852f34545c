package io.tideline.core.quota;

import static io.tideline.core.quota.QuotaTestKit.ADS_TRAINING;
import static io.tideline.core.quota.QuotaTestKit.SEARCH_INFERENCE;
import static io.tideline.core.quota.QuotaTestKit.SEARCH_TRAINING;
import static io.tideline.core.quota.QuotaTestKit.T0;
import static io.tideline.core.quota.QuotaTestKit.ledger;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class QuotaLedgerTest {

  static final Duration WEEK = Duration.ofDays(7);

  @Test
  void shouldTrackGuaranteedAndBorrowedUsagePerQueueAndSubtree() {
    QuotaLedger l = ledger()
        .admit(new Allocation("a", SEARCH_TRAINING, 8, 2, T0))
        .admit(new Allocation("b", SEARCH_INFERENCE, 4, 3, T0))
        .admit(new Allocation("c", ADS_TRAINING, 1, 0, T0));

    assertThat(l.usage(SEARCH_TRAINING)).isEqualTo(new QueueUsage(8, 2));
    assertThat(l.borrowedUnder("acme/search")).isEqualTo(5);
    assertThat(l.borrowedUnder("acme/search/ranking/training")).isEqualTo(2);
    assertThat(l.borrowedUnder("acme")).isEqualTo(5);
    assertThat(l.totalUsed()).isEqualTo(18);
  }

  @Test
  void shouldLeaveThePreviousLedgerUntouched() {
    QuotaLedger before = ledger().admit(new Allocation("a", SEARCH_TRAINING, 4, 0, T0));
    QuotaLedger after = before.release("a", T0.plusSeconds(60));

    assertThat(before.usage(SEARCH_TRAINING).guaranteedUsed()).isEqualTo(4);
    assertThat(after.usage(SEARCH_TRAINING)).isEqualTo(QueueUsage.NONE);
    assertThat(after.usages()).isEmpty();
  }

  @Test
  void shouldIgnoreAReplayedCompletionAndRefuseADoubleAdmission() {
    QuotaLedger l = ledger().admit(new Allocation("a", SEARCH_TRAINING, 4, 0, T0));

    assertThat(l.release("ghost", T0)).isSameAs(l);
    assertThatThrownBy(() -> l.admit(new Allocation("a", ADS_TRAINING, 1, 0, T0)))
        .hasMessage("job a is already admitted");
  }

  @Test
  void shouldNotDriftAfterManyFractionalAdmissionsAndReleases() {
    QuotaLedger l = ledger();
    for (int i = 0; i < 1000; i++) {
      l = l.admit(new Allocation("f" + i, SEARCH_INFERENCE, 0.1, 0.05, T0));
    }
    for (int i = 0; i < 1000; i++) {
      l = l.release("f" + i, T0);
    }
    assertThat(l.usages()).isEmpty();
    assertThat(l.totalBorrowed()).isZero();
  }

  @Test
  void shouldHalveDecayedUsageEveryHalfLife() {
    // 4 GPUs for one hour, finished at T0: 4 GPU-hours less the decay during the hour,
    // 4 × 168 h/ln2 × (1 − 2^(−1/168)) = 3.99176 GPU-hours.
    QuotaLedger l = ledger().admit(new Allocation("a", SEARCH_TRAINING, 4, 0, T0.minusSeconds(3600)))
        .release("a", T0);

    double atEnd = l.decayedUsage(SEARCH_TRAINING, T0) / 3600;
    assertThat(atEnd).isCloseTo(3.99176, within(1e-5));
    // exact arithmetic: integer GPU-milliseconds, halved and rounded once per evaluation
    long ms = l.decayedGpuMillis(SEARCH_TRAINING, T0);
    assertThat(l.decayedGpuMillis(SEARCH_TRAINING, T0.plus(WEEK))).isEqualTo(Math.round(ms / 2.0));
    assertThat(l.decayedGpuMillis(SEARCH_TRAINING, T0.plus(WEEK.multipliedBy(2))))
        .isEqualTo(Math.round(ms / 4.0));
  }

  @Test
  void shouldCountRunningJobsInDecayedUsage() {
    QuotaLedger l = ledger().admit(new Allocation("a", SEARCH_TRAINING, 2, 0, T0));

    assertThat(l.decayedUsage(SEARCH_TRAINING, T0)).isZero();
    assertThat(l.decayedUsage(SEARCH_TRAINING, T0.plusSeconds(1800)) / 3600)
        .isCloseTo(0.99897, within(1e-5)); // 2 GPUs × 30 min, minus 30 min of decay
  }

  /**
   * An admission pass asks the decayed usage at one instant again and again while it admits jobs
   * at that instant; the answers are exactly those of a ledger never asked before (the sweep is
   * remembered only while nothing that changes it happens).
   */
  @Test
  void shouldAnswerDecayedUsageExactlyAsAFreshLedgerWhileJobsAreAdmittedReleasedAndRestored() {
    java.time.Instant now = T0.plus(Duration.ofHours(3));
    QuotaLedger l = ledger()
        .admit(new Allocation("a", SEARCH_TRAINING, 4, 0, T0))
        .admit(new Allocation("b", ADS_TRAINING, 2, 1, T0.plusSeconds(600)));
    l.decayedUsages(now); // swept at `now`
    // admitted at `now`: accrues nothing yet
    l = l.admit(new Allocation("c", SEARCH_TRAINING, 1, 0, now));
    assertThat(l.decayedGpuMillis(now)).isEqualTo(fresh(l).decayedGpuMillis(now));
    assertThat(l.decayedGpuMillis(SEARCH_TRAINING, now))
        .isEqualTo(fresh(l).decayedGpuMillis(SEARCH_TRAINING, now)).isPositive();
    // admitted before `now` (a restore, a resize from an earlier instant): it has accrued
    l = l.admit(new Allocation("d", ADS_TRAINING, 8, 0, T0.plusSeconds(60)));
    assertThat(l.decayedGpuMillis(ADS_TRAINING, now))
        .isEqualTo(fresh(l).decayedGpuMillis(ADS_TRAINING, now));
    assertThat(l.decayedGpuMillis(now)).isEqualTo(fresh(l).decayedGpuMillis(now));
    // a release moves a run into the history
    l = l.release("a", now.minusSeconds(60));
    assertThat(l.decayedGpuMillis(SEARCH_TRAINING, now))
        .isEqualTo(fresh(l).decayedGpuMillis(SEARCH_TRAINING, now));
    assertThat(l.decayedGpuMillis(now)).isEqualTo(fresh(l).decayedGpuMillis(now));
    // another instant is swept afresh
    java.time.Instant later = now.plus(Duration.ofDays(1));
    assertThat(l.decayedGpuMillis(later)).isEqualTo(fresh(l).decayedGpuMillis(later));
  }

  /** The same ledger rebuilt from what it is made of: it has never been asked anything. */
  private static QuotaLedger fresh(QuotaLedger l) {
    return QuotaLedger.restore(l.fleetGpus(), l.halfLife(), l.allocations(), l.history());
  }

  @Test
  void shouldSweepEveryQueuesDecayedUsageAsIfAskedOneByOne() {
    QuotaLedger l = ledger()
        .admit(new Allocation("a", SEARCH_TRAINING, 4, 0, T0.minusSeconds(7200)))
        .release("a", T0.minusSeconds(3600))
        .admit(new Allocation("b", SEARCH_TRAINING, 1, 1, T0.minusSeconds(600)))
        .admit(new Allocation("c", ADS_TRAINING, 3, 0, T0.minusSeconds(60)));
    java.time.Instant later = T0.plus(Duration.ofDays(2));

    assertThat(l.decayedUsages(later)).containsOnlyKeys(SEARCH_TRAINING, ADS_TRAINING);
    assertThat(l.decayedUsages(later).get(SEARCH_TRAINING))
        .isCloseTo(l.decayedUsage(SEARCH_TRAINING, later), within(1e-6));
    assertThat(l.decayedUsages(later).get(ADS_TRAINING))
        .isCloseTo(l.decayedUsage(ADS_TRAINING, later), within(1e-6));
  }

  @Test
  void shouldPreemptABorrowerAndApplyAnAdmittingVerdict() {
    QuotaLedger l = ledger().admit(new Allocation("b", ADS_TRAINING, 0, 4, T0));
    AdmissionVerdict v = new AdmissionVerdict("g", SEARCH_TRAINING, Verdict.GUARANTEED, 8, 0,
        java.util.List.of("b"), false, "r", "", java.util.List.of(), "v", T0.plusSeconds(10));

    QuotaLedger after = l.apply(v);

    assertThat(after.allocation("b")).isEmpty();
    assertThat(after.allocation("g")).hasValue(
        new Allocation("g", SEARCH_TRAINING, 8, 0, T0.plusSeconds(10)));
  }
}
