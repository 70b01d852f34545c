package io.tideline.core.quota;

import io.tideline.core.trace.TraceEntry;
import static io.tideline.core.quota.QuotaTestKit.ADS_BATCH;
import static io.tideline.core.quota.QuotaTestKit.ADS_TRAINING;
import static io.tideline.core.quota.QuotaTestKit.SEARCH_INFERENCE;
import static io.tideline.core.quota.QuotaTestKit.SEARCH_TRAINING;
import static io.tideline.core.quota.QuotaTestKit.T0;
import static io.tideline.core.quota.QuotaTestKit.job;
import static io.tideline.core.quota.QuotaTestKit.ledger;
import static io.tideline.core.quota.QuotaTestKit.standard;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class QuotaAdmissionTest {

  final QuotaAdmission admission = new QuotaAdmission(QuotaConfig.DEFAULTS);
  final QuotaDefinition def = standard();

  AdmissionVerdict decide(QuotaTestKit.JobBuilder job, QuotaLedger ledger) {
    return admission.decide(job.build(), null, def, ledger, T0);
  }

  @Nested
  class GuaranteeFirst {

    @Test
    void shouldAdmitOnTheGuaranteeWhenTheFloorHasRoom() {
      AdmissionVerdict v = decide(job("j1").gpus(4), ledger());

      assertThat(v.verdict()).isEqualTo(Verdict.GUARANTEED);
      assertThat(v.queue()).isEqualTo(SEARCH_TRAINING);
      assertThat(v.guaranteedGpus()).isEqualTo(4);
      assertThat(v.borrowedGpus()).isZero();
      assertThat(v.preemptible()).isFalse();
      assertThat(v.reclaimJobIds()).isEmpty();
      assertThat(v.policyVersion()).isEqualTo("quota-rules-2/def-7");
      assertThat(v.trace()).extracting(TraceEntry::rule)
          .containsExactly("Q6 lanes", "Q2 guaranteed floor");
      assertThat(v.trace().get(1).detail()).isEqualTo("demand 4, floor 8, used 0, free 8");
    }

    @Test
    void shouldFillTheFloorExactlyOnTheGuarantee() {
      QuotaLedger l = ledger().admit(new Allocation("a", SEARCH_TRAINING, 6, 0, T0));

      assertThat(decide(job("j1").gpus(2), l).verdict()).isEqualTo(Verdict.GUARANTEED);
      assertThat(decide(job("j1").gpus(3), l).verdict()).isEqualTo(Verdict.SHARED);
    }

    @Test
    void shouldAdmitAJobWithoutGpusOnItsQueueAndChargeItNothing() {
      QuotaLedger full = ledger().admit(new Allocation("a", SEARCH_TRAINING, 8, 0, T0));

      AdmissionVerdict v = admission.decide(job("etl").gpus(0).build()
          .withResources(io.tideline.core.model.Resources.of(8_000, 0)), null, def, full, T0);

      assertThat(v.verdict()).isEqualTo(Verdict.GUARANTEED);
      assertThat(v.queue()).isEqualTo(SEARCH_TRAINING);
      assertThat(v.guaranteedGpus()).isZero();
      assertThat(v.borrowedGpus()).isZero();
      assertThat(v.reason()).contains("asks no GPU");
    }

    @Test
    void shouldCountAFractionalInstanceByItsShare() {
      QuotaLedger l = ledger().admit(new Allocation("a", SEARCH_INFERENCE, 11.75, 0, T0));

      AdmissionVerdict v = decide(job("inf").online("ranker").share(0.25), l);

      assertThat(v.verdict()).isEqualTo(Verdict.GUARANTEED);
      assertThat(v.guaranteedGpus()).isEqualTo(0.25);
    }

    @Test
    void shouldKeepAFloorWhateverOthersBorrowByReclaimingTheYoungestOfTheBiggestBorrower() {
      // Search training is idle, so its 8 GPUs are lent: borrowable 16 pool + 8 lent = 24.
      QuotaLedger l = ledger()
          .admit(new Allocation("ads-old", ADS_TRAINING, 8, 2, T0.minusSeconds(7200)))
          .admit(new Allocation("ads-new", ADS_TRAINING, 0, 8, T0.minusSeconds(3600)))
          .admit(new Allocation("serve", SEARCH_INFERENCE, 12, 8, T0.minusSeconds(3600)))
          .admit(new Allocation("batch", ADS_BATCH, 4, 4, T0.minusSeconds(60)));
      assertThat(SharedPool.of(def, l).freeGpus()).isEqualTo(2);

      AdmissionVerdict v = decide(job("own").gpus(8), l);

      assertThat(v.verdict()).isEqualTo(Verdict.GUARANTEED);
      assertThat(v.reclaimJobIds()).containsExactly("ads-new");
      assertThat(v.trace()).anySatisfy(t -> {
        assertThat(t.rule()).isEqualTo("Q3 reclaim for guarantee");
        assertThat(t.detail()).startsWith("acme/ads/ctr/training borrows 10");
      });
      QuotaLedger after = l.apply(v);
      assertThat(after.allocation("ads-new")).isEmpty();
      assertThat(after.usage(SEARCH_TRAINING).guaranteedUsed()).isEqualTo(8);
      assertThat(SharedPool.of(def, after).freeGpus()).isGreaterThanOrEqualTo(0);
      assertThat(after.totalUsed()).isLessThanOrEqualTo(48);
    }
  }

  @Nested
  class Borrowing {

    @Test
    void shouldBorrowOnlyWhatTheFloorCannotCoverAndMarkItPreemptible() {
      QuotaLedger l = ledger().admit(new Allocation("a", SEARCH_TRAINING, 6, 0, T0));

      AdmissionVerdict v = decide(job("j1").gpus(4), l);

      assertThat(v.verdict()).isEqualTo(Verdict.SHARED);
      assertThat(v.guaranteedGpus()).isEqualTo(2);
      assertThat(v.borrowedGpus()).isEqualTo(2);
      assertThat(v.preemptible()).isTrue();
      assertThat(v.reason()).isEqualTo("borrows 2 GPUs beyond its guarantee: preemptible");
    }

    @Test
    void shouldBorrowUpToTheQueueCapButNotBeyond() {
      QuotaLedger l = ledger()
          .admit(new Allocation("a", SEARCH_TRAINING, 8, 0, T0))
          .admit(new Allocation("b", SEARCH_TRAINING, 0, 6, T0));

      assertThat(decide(job("at-cap").gpus(2), l).verdict()).isEqualTo(Verdict.SHARED);
      AdmissionVerdict over = decide(job("over-cap").gpus(3), l);

      assertThat(over.verdict()).isEqualTo(Verdict.QUEUED);
      assertThat(over.reason()).isEqualTo("borrowing cap of " + SEARCH_TRAINING + " reached");
      assertThat(over.unblockedBy())
          .isEqualTo("1 GPUs of borrowing released under " + SEARCH_TRAINING);
      assertThat(over.trace()).last().satisfies(t -> {
        assertThat(t.rule()).isEqualTo("Q3 borrowing cap");
        assertThat(t.detail()).isEqualTo("borrowed 6 + 3 vs cap 8");
      });
    }

    @Test
    void shouldStopAtAnAncestorsCapEvenWhenTheQueueHasRoom() {
      // The ranking team may borrow 12: training already borrows 8, inference 3.
      QuotaLedger l = ledger()
          .admit(new Allocation("t", SEARCH_TRAINING, 8, 8, T0))
          .admit(new Allocation("s", SEARCH_INFERENCE, 12, 3, T0));

      assertThat(decide(job("one").online("ranker").gpus(1), l).verdict())
          .isEqualTo(Verdict.SHARED);
      AdmissionVerdict v = decide(job("two").online("ranker").gpus(2), l);

      assertThat(v.verdict()).isEqualTo(Verdict.QUEUED);
      assertThat(v.reason()).isEqualTo("borrowing cap of acme/search/ranking reached");
    }

    @Test
    void shouldQueueWhenTheSharedPoolIsContendedAndSayHowMuchMustFree() {
      // Every floor in use (nothing lent) and 16 borrowed: the pool of 16 is full.
      QuotaLedger l = ledger()
          .admit(new Allocation("ads", ADS_TRAINING, 8, 10, T0))
          .admit(new Allocation("batch", ADS_BATCH, 4, 0, T0))
          .admit(new Allocation("serve", SEARCH_INFERENCE, 12, 0, T0))
          .admit(new Allocation("train", SEARCH_TRAINING, 8, 6, T0));

      AdmissionVerdict v = decide(job("more").gpus(1), l);

      assertThat(v.verdict()).isEqualTo(Verdict.QUEUED);
      assertThat(v.reason()).isEqualTo("shared pool contended");
      assertThat(v.unblockedBy()).startsWith("1 GPUs freed in the shared pool");
    }

    @Test
    void shouldLendIdleGuaranteesOnlyUpToTheLendingLimit() {
      QuotaLedger empty = ledger();
      // Training and batch floors are lent in full (8 + 8 + 4); inference lends nothing.
      assertThat(SharedPool.of(def, empty).borrowableGpus()).isEqualTo(36);
      QuotaDefinition tight = QuotaDefinition.of("def-8", def.nodes().stream()
          .map(n -> n.path().equals("acme/ads")
              ? QuotaNode.businessLine("acme/ads", 12, 10, 5) : n).toList());

      assertThat(SharedPool.of(tight, empty).lendableGpus()).isEqualTo(8 + 5);
    }
  }

  @Nested
  class PoolWhatIf {

    @Test
    void shouldForeseeThePoolAnAdmissionLeavesWithoutCopyingTheLedger() {
      QuotaLedger l = ledger()
          .admit(new Allocation("a", ADS_TRAINING, 8, 3, T0))
          .admit(new Allocation("b", SEARCH_TRAINING, 2, 0, T0));

      SharedPool foreseen = SharedPool.ifAdmitted(def, l, SEARCH_TRAINING, 5, 2);
      SharedPool actual = SharedPool.of(def, l.admit(new Allocation("c", SEARCH_TRAINING, 5, 2, T0)));

      assertThat(foreseen).isEqualTo(actual);
      assertThat(actual.lendableGpus()).isEqualTo(1 + 4); // search training 8 − 7, ads batch 4
      assertThat(actual.freeGpus()).isEqualTo(16 + 5 - 5);
    }
  }

  @Nested
  class Entitlements {

    @Test
    void shouldRejectAPreemptionRightTheTenantIsNotEntitledTo() {
      AdmissionVerdict v = decide(job("ads-1").ads().gpus(2).wantsPreemptionRight(), ledger());

      assertThat(v.verdict()).isEqualTo(Verdict.REJECTED);
      assertThat(v.reason()).isEqualTo("preemption right not entitled");
      assertThat(v.preemptionRightGranted()).isFalse();
      assertThat(v.trace()).last().satisfies(t -> {
        assertThat(t.rule()).isEqualTo("W4 preemption entitlement");
        assertThat(t.detail()).isEqualTo(
            "requested by a TRAINING job; acme/ads/ctr/training grants []");
      });
    }

    @Test
    void shouldRejectARightForAnOrdinaryTrainingJobOfAnEntitledTenant() {
      AdmissionVerdict v = decide(job("t").gpus(2).wantsPreemptionRight(), ledger());

      assertThat(v.verdict()).isEqualTo(Verdict.REJECTED);
      assertThat(v.trace()).last().extracting(TraceEntry::detail).isEqualTo("requested by a "
          + "TRAINING job; acme/search/ranking/training grants [ONLINE_INFERENCE, CRITICAL_JOBS]");
    }

    @Test
    void shouldGrantTheRightToOnlineInferenceAndCriticalJobsOfAnEntitledTenant() {
      AdmissionVerdict online = decide(job("o").online("ranker").wantsPreemptionRight(), ledger());
      AdmissionVerdict critical = decide(job("c").critical().wantsPreemptionRight(), ledger());

      assertThat(online.verdict()).isEqualTo(Verdict.GUARANTEED);
      assertThat(online.preemptionRightGranted()).isTrue();
      assertThat(critical.preemptionRightGranted()).isTrue();
      assertThat(critical.trace()).extracting(TraceEntry::detail)
          .contains("critical job entitled to preempt");
    }

    @Test
    void shouldGrantAnyJobOfAConfiguredBusinessLevel() {
      QuotaDefinition premium = QuotaDefinition.of("def-9", def.nodes().stream()
          .map(n -> n.path().equals("acme/ads") ? n.withGrants(PreemptionGrant.BUSINESS_LEVEL) : n)
          .toList());

      AdmissionVerdict v = admission.decide(job("a").ads().wantsPreemptionRight().build(), null,
          premium, ledger(), T0);

      assertThat(v.preemptionRightGranted()).isTrue();
    }

    @Test
    void shouldNeverLendPreemptibleCapacityToAJobDeclaredNonPreemptible() {
      QuotaLedger l = ledger().admit(new Allocation("a", SEARCH_TRAINING, 6, 0, T0));

      AdmissionVerdict v = decide(job("np").gpus(4).nonPreemptible(), l);

      assertThat(v.verdict()).isEqualTo(Verdict.QUEUED);
      assertThat(v.reason()).isEqualTo("declared non-preemptible: needs guaranteed quota");
      assertThat(v.unblockedBy()).isEqualTo("2 GPUs of " + SEARCH_TRAINING + "'s guarantee released");
    }

    @Test
    void shouldLetOnlineInferenceBorrowThePoolBeyondItsLockedGuarantee() {
      // Q3 (ADR 0007): floor 12, cap 8 — a non-preemptible online set of 16 borrows 4 as pool work.
      AdmissionVerdict v = decide(job("search-api-1").online("search-api").gpus(16).nonPreemptible(),
          ledger());

      assertThat(v.verdict()).isEqualTo(Verdict.SHARED);
      assertThat(v.guaranteedGpus()).isEqualTo(12);
      assertThat(v.borrowedGpus()).isEqualTo(4);
      assertThat(v.preemptible()).isTrue();
      assertThat(v.trace()).anySatisfy(t -> {
        assertThat(t.rule()).isEqualTo("Q3 online borrows the shared pool");
        assertThat(t.outcome()).isEqualTo("allowed");
      });
    }

    @Test
    void shouldStopOnlineBorrowingAtItsBorrowingCap() {
      AdmissionVerdict v = decide(job("search-api-1").online("search-api").gpus(21).nonPreemptible(),
          ledger());

      assertThat(v.verdict()).isEqualTo(Verdict.QUEUED);
      assertThat(v.reason()).startsWith("borrowing cap of ");
    }
  }

  @Nested
  class Cooldown {

    final Instant preemptedAt = T0;
    final QuotaLedger floorFull = ledger().admit(new Allocation("a", SEARCH_TRAINING, 8, 0, T0));

    AdmissionVerdict at(Duration after, QuotaLedger l, int gpus) {
      return admission.decide(job("victim").gpus(gpus).build(), preemptedAt, def, l,
          preemptedAt.plus(after));
    }

    @Test
    void shouldKeepARecentlyPreemptedJobOffSharedCapacityAt29Minutes59() {
      AdmissionVerdict v = at(Duration.ofMinutes(29).plusSeconds(59), floorFull, 2);

      assertThat(v.verdict()).isEqualTo(Verdict.QUEUED);
      assertThat(v.reason()).isEqualTo("cooldown until 2026-11-02T14:30:00Z");
      assertThat(v.unblockedBy()).endsWith("or the cooldown ending at 2026-11-02T14:30:00Z");
    }

    @Test
    void shouldLetItBorrowAgainAt30Minutes() {
      AdmissionVerdict v = at(Duration.ofMinutes(30), floorFull, 2);

      assertThat(v.verdict()).isEqualTo(Verdict.SHARED);
      assertThat(v.trace()).extracting(TraceEntry::rule).contains("P3 cooldown");
    }

    @Test
    void shouldAdmitItOnGuaranteedQuotaInsideTheCooldown() {
      AdmissionVerdict v = at(Duration.ofMinutes(1), ledger(), 2);

      assertThat(v.verdict()).isEqualTo(Verdict.GUARANTEED);
    }
  }

  @Nested
  class Resolution {

    @Test
    void shouldRejectAnUnknownTenant() {
      AdmissionVerdict v = decide(job("g").tenant("games", "ranking"), ledger());

      assertThat(v.verdict()).isEqualTo(Verdict.REJECTED);
      assertThat(v.reason()).isEqualTo("unknown tenant 'games'");
      assertThat(v.queue()).isNull();
    }

    @Test
    void shouldRejectAnUnknownTeam() {
      assertThat(decide(job("g").tenant("search", "ads"), ledger()).reason())
          .isEqualTo("unknown team 'ads'");
    }

    @Test
    void shouldRejectAJobWhoseTeamHasNoQueueForItsLane() {
      AdmissionVerdict v = decide(job("b").batch(), ledger());

      assertThat(v.verdict()).isEqualTo(Verdict.REJECTED);
      assertThat(v.reason()).isEqualTo("no BATCH queue");
    }

    @Test
    void shouldRejectASecondAdmissionOfARunningJob() {
      QuotaLedger l = ledger().admit(new Allocation("j1", SEARCH_TRAINING, 1, 0, T0));

      assertThat(decide(job("j1"), l).reason()).isEqualTo("job already admitted");
    }
  }
}
