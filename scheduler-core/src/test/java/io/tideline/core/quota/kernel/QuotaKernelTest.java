package io.tideline.core.quota.kernel;

import static io.tideline.core.quota.QuotaTestKit.T0;
import static io.tideline.core.quota.QuotaTestKit.job;
import static io.tideline.core.quota.kernel.KernelDriver.INFERENCE;
import static io.tideline.core.quota.kernel.KernelDriver.RESEARCH;
import static io.tideline.core.quota.kernel.KernelDriver.TRAINING;
import static io.tideline.core.quota.kernel.KernelDriver.of;
import static io.tideline.core.quota.kernel.KernelDriver.verdict;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tideline.core.kernel.Tick;
import io.tideline.core.model.JobRequest;
import io.tideline.core.pricing.ChargeBasis;
import io.tideline.core.quota.IdleRecommendation;
import io.tideline.core.quota.Verdict;
import io.tideline.core.quota.kernel.QuotaEffect.GuaranteeReclaimRequested;
import io.tideline.core.quota.kernel.QuotaEffect.InputRefused;
import io.tideline.core.quota.kernel.QuotaEffect.QueueStateChanged;
import io.tideline.core.quota.kernel.QuotaEffect.UsageBilled;
import io.tideline.core.quota.kernel.QuotaEffect.VerdictIssued;
import io.tideline.core.quota.kernel.QuotaInput.Lifecycle.Kind;
import io.tideline.core.slots.SlotClass;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The quota kernel's cycle, scenario by scenario, on {@link KernelDriver}'s 16-GPU hierarchy with
 * explicit timestamps: inputs wait for a tick, the tick decides.
 */
class QuotaKernelTest {

  static final Duration S = Duration.ofSeconds(1);

  static JobRequest research(String id, int gpus, Instant at) {
    return job(id).tenant("research", "llm").gpus(gpus).submittedAt(at).build();
  }

  static JobRequest search(String id, int gpus, Instant at) {
    return job(id).gpus(gpus).submittedAt(at).build();
  }

  @Nested
  class TickGating {

    @Test
    void shouldDecideNothingUntilATickStrictlyAfterTheInput() {
      KernelDriver k = new KernelDriver();

      assertThat(k.submit(search("g1", 4, T0))).isEmpty();
      assertThat(k.tick(T0)).as("an input timed at the tick waits for the next one")
          .noneMatch(VerdictIssued.class::isInstance);
      List<QuotaEffect> next = k.tick(T0.plusMillis(1));

      assertThat(verdict("g1", next).verdict()).isEqualTo(Verdict.GUARANTEED);
      assertThat(verdict("g1", next).at()).isEqualTo(T0.plusMillis(1));
      assertThat(next).allSatisfy(e -> assertThat(e.at()).isEqualTo(T0.plusMillis(1)));
    }

    @Test
    void shouldRefuseAnInputTimedFarAheadOfTheClockAndNeverLetItWait() {
      KernelDriver k = new KernelDriver();
      k.tick(T0);

      List<QuotaEffect> refused = k.submit(search("future", 1, Instant.parse(
          "2300-01-01T00:00:00Z")));

      assertThat(refused).singleElement().isInstanceOfSatisfying(InputRefused.class, r -> {
        assertThat(r.seq()).isEqualTo(-1);
        assertThat(r.reason()).contains("more than PT24H after the cluster clock");
      });
      assertThat(k.state.inbox().isEmpty()).isTrue();
      assertThat(k.submit(search("soon", 1, T0.plus(Duration.ofHours(23))))).isEmpty();
    }

    @Test
    void shouldIgnoreATickThatDoesNotMoveTheClockOrBelongsToAnotherCluster() {
      KernelDriver k = new KernelDriver();
      k.tick(T0);
      k.submit(search("g1", 4, T0.plusSeconds(1)));

      assertThat(k.tick(T0)).isEmpty();
      assertThat(k.offer(new QuotaInput.Clock(new Tick(T0.plusSeconds(5), "elsewhere"))))
          .isEmpty();
      assertThat(k.state.inbox().size()).isEqualTo(1);
    }

    @Test
    void shouldGiveIdenticalEffectsWhateverOrderTheInputsOfACycleArrivedIn() {
      List<QuotaInput> inputs = new ArrayList<>(List.of(
          new QuotaInput.Submission(research("r1", 8, T0.plusSeconds(1))),
          new QuotaInput.Submission(search("s1", 8, T0.plusSeconds(2))),
          new QuotaInput.Submission(research("r2", 2, T0.plusSeconds(2))),
          new QuotaInput.Submission(job("o1").online("search-api").gpus(2)
              .submittedAt(T0.plusSeconds(3)).build()),
          new QuotaInput.Peak("search-api", 10, T0.plusSeconds(2)),
          new QuotaInput.Lifecycle("unknown", Kind.STARTED, T0.plusSeconds(2), 0)));
      KernelDriver a = new KernelDriver();
      KernelDriver b = new KernelDriver();
      a.tick(T0);
      b.tick(T0);

      inputs.forEach(a::offer);
      java.util.Collections.reverse(inputs);
      inputs.forEach(b::offer);
      List<QuotaEffect> ea = a.tick(T0.plusSeconds(10));
      List<QuotaEffect> eb = b.tick(T0.plusSeconds(10));

      assertThat(ea).isNotEmpty().isEqualTo(eb);
      assertThat(of(VerdictIssued.class, ea)).extracting(VerdictIssued::jobId)
          .contains("r1", "s1", "r2", "o1");
    }
  }

  @Nested
  class Admission {

    @Test
    void shouldGrantTheFloorThenLendThePoolThenQueueWhenItIsContended() {
      KernelDriver k = new KernelDriver();
      k.submit(search("g1", 4, T0));
      k.submit(search("s1", 8, T0.plusSeconds(1)));
      k.submit(search("q1", 2, T0.plusSeconds(2)));

      List<QuotaEffect> e = k.tick(T0.plusSeconds(10));

      assertThat(of(VerdictIssued.class, e)).extracting(VerdictIssued::jobId,
          VerdictIssued::verdict, VerdictIssued::gpus).containsExactly(
              tuple("g1", Verdict.GUARANTEED, 4.0), tuple("s1", Verdict.SHARED, 8.0),
              tuple("q1", Verdict.QUEUED, 2.0));
      assertThat(verdict("q1", e).reason()).isEqualTo("shared pool contended");
      assertThat(of(QueueStateChanged.class, e)).filteredOn(q -> q.queue().equals(TRAINING))
          .singleElement().satisfies(q -> {
            assertThat(q.usedGuaranteedGpus()).isEqualTo(4);
            assertThat(q.usedBorrowedGpus()).isEqualTo(8);
          });
      assertThat(k.job("s1").basis()).isEqualTo(ChargeBasis.ON_DEMAND);
    }

    @Test
    void shouldNotRepublishAWaitingVerdictWhoseOnlyChangeIsTheNumberInItsHint() {
      KernelDriver k = new KernelDriver();
      k.submit(search("g1", 4, T0));
      k.submit(search("s1", 8, T0.plusSeconds(1)));
      k.submit(research("r0", 1, T0.plusSeconds(2)));
      k.submit(search("q1", 8, T0.plusSeconds(3)));
      k.tick(T0.plusSeconds(10));
      k.started("g1", T0.plusSeconds(11));
      k.started("s1", T0.plusSeconds(11));
      k.started("r0", T0.plusSeconds(11));
      k.tick(T0.plusSeconds(12));
      assertThat(k.job("q1").verdict().verdict()).isEqualTo(Verdict.QUEUED);
      String hintBefore = k.job("q1").verdict().unblockedBy();
      // r0 finishes: one GPU comes back, q1 still needs more than the pool has
      k.completed("r0", T0.plusSeconds(20));

      List<QuotaEffect> e = k.tick(T0.plusSeconds(30));

      assertThat(k.job("q1").verdict().verdict()).isEqualTo(Verdict.QUEUED);
      assertThat(k.job("q1").verdict().unblockedBy()).as("the hint moved, kept in state")
          .isNotEqualTo(hintBefore);
      assertThat(of(VerdictIssued.class, e)).extracting(VerdictIssued::jobId)
          .as("no verdict republished for a hint alone").doesNotContain("q1");
    }

    @Test
    void shouldServeTheQueueWithLessDecayedUsageFirstWhenThePoolIsContended() {
      KernelDriver k = new KernelDriver();
      // research used 4 GPUs for ten hours yesterday: its decayed usage is ahead of search's
      k.submit(research("history", 4, T0.minus(Duration.ofDays(1))));
      k.tick(T0.minus(Duration.ofDays(1)).plusSeconds(1));
      k.started("history", T0.minus(Duration.ofDays(1)).plusSeconds(2));
      k.tick(T0.minus(Duration.ofDays(1)).plusSeconds(3));
      k.completed("history", T0.minus(Duration.ofHours(14)));
      k.tick(T0.minus(Duration.ofHours(14)).plusSeconds(1));
      // research asks first, search second; only one 4-GPU borrowing fits the pool
      k.submit(research("x", 8, T0));
      k.submit(search("y", 8, T0.plusSeconds(1)));

      List<QuotaEffect> e = k.tick(T0.plusSeconds(10));

      assertThat(verdict("y", e).verdict()).isEqualTo(Verdict.SHARED);
      assertThat(verdict("x", e).verdict()).isEqualTo(Verdict.QUEUED);
      assertThat(verdict("x", e).fairShareUsage()).isGreaterThan(verdict("y", e).fairShareUsage());
    }

    @Test
    void shouldKeepAPreemptedJobOffBorrowedCapacityDuringItsCooldownCountedFromThePreemption() {
      KernelDriver k = new KernelDriver();
      k.submit(search("s1", 8, T0));
      k.tick(T0.plusSeconds(1));
      k.started("s1", T0.plusSeconds(2));
      Instant preemptedAt = T0.plusSeconds(600);
      k.preempted("s1", preemptedAt);

      VerdictIssued cooling = verdict("s1", k.tick(preemptedAt.plusSeconds(1)));
      assertThat(cooling.verdict()).isEqualTo(Verdict.QUEUED);
      assertThat(cooling.reason()).isEqualTo("cooldown until " + preemptedAt.plus(
          Duration.ofMinutes(30)));
      assertThat(of(VerdictIssued.class, k.tick(preemptedAt.plus(Duration.ofMinutes(29)))))
          .isEmpty();
      assertThat(verdict("s1", k.tick(preemptedAt.plus(Duration.ofMinutes(30)))).verdict())
          .isEqualTo(Verdict.SHARED);
    }
  }

  @Nested
  class DuplicateJobIds {

    @Test
    void shouldIgnoreAnIdenticalResubmissionAsAnIdempotentRepeat() {
      KernelDriver k = new KernelDriver();
      k.submit(search("g1", 1, T0));
      k.tick(T0.plusSeconds(1));
      k.submit(search("g1", 1, T0));

      List<QuotaEffect> e = k.tick(T0.plusSeconds(2));

      assertThat(e).noneMatch(x -> x instanceof InputRefused || x instanceof VerdictIssued);
    }

    @Test
    void shouldRefuseAResubmissionWithOtherContentAsAConflictAndKeepTheAdmittedSize() {
      KernelDriver k = new KernelDriver();
      k.submit(search("x", 1, T0));
      k.tick(T0.plusSeconds(1));
      long seq = k.state.inbox().nextSeq();
      k.submit(search("x", 64, T0.plusSeconds(5)));
      k.submit(search("after", 1, T0.plusSeconds(6)));

      List<QuotaEffect> e = k.tick(T0.plusSeconds(10));

      assertThat(of(InputRefused.class, e)).singleElement().satisfies(r -> {
        assertThat(r.seq()).isEqualTo(seq);
        assertThat(r.errorClass()).isEqualTo("VALIDATION");
        assertThat(r.reason()).contains("job id x is already known with other content")
            .contains("gpuCount: known 1, resubmitted 64");
      });
      assertThat(verdict("after", e).verdict()).isEqualTo(Verdict.GUARANTEED);
      assertThat(k.job("x").request().gpuCount()).isEqualTo(1);
      assertThat(k.job("x").allocation().gpus()).isEqualTo(1);
    }

    @Test
    void shouldTellTwoDifferentSubmissionsOfANewIdInOneCycleApartInArrivalOrder() {
      KernelDriver k = new KernelDriver();
      k.submit(search("x", 1, T0));
      k.submit(search("x", 2, T0));

      List<QuotaEffect> e = k.tick(T0.plusSeconds(1));

      assertThat(verdict("x", e).gpus()).isEqualTo(1);
      assertThat(of(InputRefused.class, e)).singleElement()
          .satisfies(r -> assertThat(r.seq()).isEqualTo(1));
    }
  }

  @Nested
  class GuaranteeReclaim {

    /** Research borrows 8 (r1: 4 + 4 borrowed, r2: 4 borrowed), both running. */
    KernelDriver borrowed() {
      KernelDriver k = new KernelDriver();
      k.submit(research("r1", 8, T0));
      k.tick(T0.plusSeconds(1));
      k.submit(research("r2", 4, T0.plusSeconds(2)));
      k.tick(T0.plusSeconds(3));
      k.started("r1", T0.plusSeconds(4));
      k.started("r2", T0.plusSeconds(4));
      k.tick(T0.plusSeconds(5));
      assertThat(k.job("r2").verdict().verdict()).isEqualTo(Verdict.SHARED);
      return k;
    }

    @Test
    void shouldAdmitTheGuaranteedJobAndRequestTheRunningBorrowersWithoutStoppingThem() {
      KernelDriver k = borrowed();
      k.submit(search("g1", 4, T0.plusSeconds(60)));

      List<QuotaEffect> e = k.tick(T0.plusSeconds(61));

      VerdictIssued g1 = verdict("g1", e);
      assertThat(g1.verdict()).isEqualTo(Verdict.GUARANTEED);
      assertThat(g1.trace()).anySatisfy(t -> {
        assertThat(t.rule()).isEqualTo("Q3 reclaim for guarantee");
        assertThat(t.outcome()).isEqualTo("requested");
      });
      assertThat(of(GuaranteeReclaimRequested.class, e)).singleElement().satisfies(r -> {
        assertThat(r.reclaimId()).isEqualTo("c1/guarantee/g1/" + T0.plusSeconds(61).toEpochMilli());
        assertThat(r.beneficiaryJobId()).isEqualTo("g1");
        assertThat(r.queue()).isEqualTo(TRAINING);
        assertThat(r.beneficiaryGpus()).isEqualTo(4);
        assertThat(r.attempt()).isEqualTo(1);
        assertThat(r.borrowers()).containsExactly(new QuotaEffect.Borrower("r2", RESEARCH, 4, 4));
      });
      // r2 still runs and holds its GPUs in the ledger until PREEMPTED: no verdict for it
      assertThat(of(VerdictIssued.class, e)).extracting(VerdictIssued::jobId).containsExactly("g1");
      assertThat(k.job("r2").status()).isEqualTo(QuotaJob.Status.RUNNING);
      assertThat(k.state.ledger().allocation("r2")).isPresent();
      assertThat(k.state.reclaims().get("g1").borrowers()).containsExactly("r2");
    }

    @Test
    void shouldCountTheGpusOfABorrowerBeingReclaimedOnceWhileItsPreemptionIsInFlight() {
      KernelDriver k = borrowed();
      k.submit(search("g1", 4, T0.plusSeconds(60)));
      k.tick(T0.plusSeconds(61));
      // a guaranteed job of a floor nobody borrows, and a borrower, before r2 is preempted
      k.submit(job("o1").online("search-api").gpus(4).submittedAt(T0.plusSeconds(62)).build());
      k.submit(research("r3", 1, T0.plusSeconds(62)));

      List<QuotaEffect> e = k.tick(T0.plusSeconds(63));

      assertThat(verdict("o1", e).verdict()).isEqualTo(Verdict.GUARANTEED);
      assertThat(k.job("o1").verdict().reclaimJobIds()).as("r2 is not named twice").isEmpty();
      assertThat(of(GuaranteeReclaimRequested.class, e)).isEmpty();
      assertThat(verdict("r3", e).verdict()).isEqualTo(Verdict.QUEUED);
      assertThat(verdict("r3", e).reason()).isEqualTo("shared pool contended");
    }

    @Test
    void shouldRequestAgainAfterTheRetryIntervalWhileTheBorrowerStillRuns() {
      KernelDriver k = borrowed();
      k.submit(search("g1", 4, T0.plusSeconds(60)));
      Instant first = T0.plusSeconds(61);
      k.tick(first);

      assertThat(of(GuaranteeReclaimRequested.class, k.tick(first.plus(Duration.ofMinutes(4)))))
          .isEmpty();
      List<GuaranteeReclaimRequested> again = of(GuaranteeReclaimRequested.class,
          k.tick(first.plus(Duration.ofMinutes(5))));

      assertThat(again).singleElement().satisfies(r -> {
        assertThat(r.attempt()).isEqualTo(2);
        assertThat(r.reclaimId()).endsWith("/" + first.plus(Duration.ofMinutes(5)).toEpochMilli());
        assertThat(r.borrowers()).extracting(QuotaEffect.Borrower::jobId).containsExactly("r2");
      });
    }

    @Test
    void shouldCountTheBorrowerStoppedOnlyWhenItsPreemptedFactArrivesWithItsCooldown() {
      KernelDriver k = borrowed();
      k.submit(search("g1", 4, T0.plusSeconds(60)));
      k.tick(T0.plusSeconds(61));
      Instant preemptedAt = T0.plus(Duration.ofMinutes(3));
      k.preempted("r2", preemptedAt);

      List<QuotaEffect> e = k.tick(preemptedAt.plusSeconds(1));

      assertThat(k.job("r2").status()).isEqualTo(QuotaJob.Status.WAITING);
      assertThat(k.job("r2").lastPreemptedAt()).isEqualTo(preemptedAt);
      assertThat(k.state.ledger().allocation("r2")).isEmpty();
      assertThat(k.state.reclaims().has("g1")).isFalse();
      assertThat(verdict("r2", e).reason()).isEqualTo("cooldown until "
          + preemptedAt.plus(Duration.ofMinutes(30)));
      // billed for the whole run up to the preemption
      assertThat(of(UsageBilled.class, e)).filteredOn(b -> b.jobId().equals("r2"))
          .extracting(UsageBilled::to).contains(preemptedAt);
      assertThat(of(QueueStateChanged.class, e)).filteredOn(q -> q.queue().equals(RESEARCH))
          .singleElement().satisfies(q -> assertThat(q.usedBorrowedGpus()).isEqualTo(4));
    }

    @Test
    void shouldWithdrawAnAdmittedBorrowerThatHasNotStartedInsteadOfAskingForIt() {
      KernelDriver k = new KernelDriver();
      k.submit(research("r1", 8, T0));
      k.tick(T0.plusSeconds(1));
      k.started("r1", T0.plusSeconds(2));
      k.submit(research("r2", 4, T0.plusSeconds(2)));
      k.tick(T0.plusSeconds(3)); // r2 admitted SHARED, not started
      k.submit(search("g1", 4, T0.plusSeconds(60)));

      List<QuotaEffect> e = k.tick(T0.plusSeconds(61));

      assertThat(verdict("g1", e).verdict()).isEqualTo(Verdict.GUARANTEED);
      assertThat(verdict("r2", e).verdict()).isEqualTo(Verdict.QUEUED);
      assertThat(verdict("r2", e).reason()).startsWith("admission withdrawn before it started");
      assertThat(of(GuaranteeReclaimRequested.class, e)).isEmpty();
      assertThat(k.job("r2").lastPreemptedAt()).as("never preempted: no cooldown").isNull();
      assertThat(k.state.ledger().allocation("r2")).isEmpty();

      // placement had placed it before the withdrawal reached it: quota accounts it and asks
      k.started("r2", T0.plusSeconds(62));
      List<QuotaEffect> late = k.tick(T0.plusSeconds(63));

      assertThat(k.job("r2").status()).isEqualTo(QuotaJob.Status.RUNNING);
      assertThat(of(GuaranteeReclaimRequested.class, late)).singleElement()
          .satisfies(r -> assertThat(r.borrowers()).extracting(QuotaEffect.Borrower::jobId)
              .containsExactly("r2"));
    }

    @Test
    void shouldDropTheReclaimWhenTheGuaranteedJobEnds() {
      KernelDriver k = borrowed();
      k.submit(search("g1", 4, T0.plusSeconds(60)));
      k.tick(T0.plusSeconds(61));
      k.completed("g1", T0.plusSeconds(90));

      List<QuotaEffect> e = k.tick(T0.plus(Duration.ofMinutes(10)));

      assertThat(k.state.reclaims().isEmpty()).isTrue();
      assertThat(of(GuaranteeReclaimRequested.class, e)).isEmpty();
      assertThat(k.job("r2").status()).isEqualTo(QuotaJob.Status.RUNNING);
    }
  }

  @Nested
  class OnlineFloors {

    @Test
    void shouldApplyANewPeaksGuaranteeAsTheFloorAndDecideTheNextJobsOnIt() {
      KernelDriver declared = new KernelDriver();
      KernelDriver reviewed = new KernelDriver();
      reviewed.tick(T0);
      reviewed.peak("search-api", 10, T0.plusSeconds(1)); // ceil(0.7 × 10) = 7
      List<QuotaEffect> review = reviewed.tick(T0.plusSeconds(2));
      // a 6-GPU online set: 4 on the declared floor + 2 borrowed, or 6 on the reviewed floor
      JobRequest six = job("o6").online("search-api").gpus(6).submittedAt(T0.plusSeconds(3))
          .build();
      declared.submit(six);
      reviewed.submit(six);

      VerdictIssued onDeclared = verdict("o6", declared.tick(T0.plusSeconds(4)));
      VerdictIssued onReviewed = verdict("o6", reviewed.tick(T0.plusSeconds(4)));

      assertThat(of(QuotaEffect.GuaranteeChanged.class, review)).singleElement().satisfies(c -> {
        assertThat(c.newGuaranteeGpus()).isEqualTo(7);
        assertThat(c.queue()).isEqualTo(INFERENCE);
        assertThat(c.oldFloorGpus()).isEqualTo(4);
        assertThat(c.newFloorGpus()).isEqualTo(7);
        assertThat(c.reason()).contains("floor of " + INFERENCE + " 4 → 7 applied (locked)");
      });
      assertThat(of(QueueStateChanged.class, review)).filteredOn(q -> q.queue().equals(INFERENCE))
          .singleElement().satisfies(q -> assertThat(q.guaranteedGpus()).isEqualTo(7));
      assertThat(onDeclared.verdict()).isEqualTo(Verdict.SHARED);
      assertThat(onReviewed.verdict()).isEqualTo(Verdict.GUARANTEED);
      assertThat(onReviewed.preemptible()).isFalse();
    }
  }

  @Nested
  class IdleReclaim {

    @Test
    void shouldRecommendAShrinkOnceAndLearnTheShrunkSizeFromTheResumedFact() {
      KernelDriver k = new KernelDriver();
      k.submit(job("idle").gpus(4).expectedSeconds(10 * 3600).submittedAt(T0).build());
      k.tick(T0.plusSeconds(1));
      k.started("idle", T0.plusSeconds(1));
      for (int m = 0; m <= 61; m++) {
        for (int g = 0; g < 4; g++) {
          k.sample("n1/" + g, "idle", 0.30, T0.plusSeconds(1).plus(Duration.ofMinutes(m)));
        }
      }
      Instant at = T0.plus(Duration.ofMinutes(62));

      List<QuotaEffect.IdleReclaimRecommended> first = of(
          QuotaEffect.IdleReclaimRecommended.class, k.tick(at));
      List<QuotaEffect.IdleReclaimRecommended> second = of(
          QuotaEffect.IdleReclaimRecommended.class, k.tick(at.plusSeconds(10)));

      assertThat(first).singleElement().satisfies(r -> {
        assertThat(r.action()).isEqualTo(IdleRecommendation.Action.SHRINK);
        assertThat(r.currentGpus()).isEqualTo(4);
        assertThat(r.recommendedGpus()).isEqualTo(2);
      });
      assertThat(second).as("recommended once").isEmpty();
      assertThat(k.job("idle").status()).as("quota changes nothing itself")
          .isEqualTo(QuotaJob.Status.RUNNING);

      // preemption decided, placement evicted and requeued it with 2 GPUs: quota learns it
      k.preempted("idle", at.plusSeconds(20));
      k.tick(at.plusSeconds(21)); // back on its floor at once (guaranteed: no cooldown applies)
      k.offer(new QuotaInput.Lifecycle("idle", Kind.RESUMED, at.plusSeconds(30), 2.0));
      List<QuotaEffect> e = k.tick(at.plusSeconds(31));

      assertThat(k.state.ledger().allocation("idle").orElseThrow().gpus()).isEqualTo(2);
      assertThat(of(QueueStateChanged.class, e)).filteredOn(q -> q.queue().equals(TRAINING))
          .singleElement().satisfies(q -> assertThat(q.usedGuaranteedGpus()).isEqualTo(2));
    }
  }

  @Nested
  class Metering {

    @Test
    void shouldBillPerSecondSplitAtTheSlotBoundaryAtEachSlotsPrice() {
      KernelDriver k = new KernelDriver();
      k.submit(search("g1", 4, Instant.parse("2026-11-02T09:00:00Z")));
      k.tick(Instant.parse("2026-11-02T09:00:01Z"));
      k.started("g1", Instant.parse("2026-11-02T09:30:00Z"));
      k.tick(Instant.parse("2026-11-02T09:30:01Z"));
      k.completed("g1", Instant.parse("2026-11-02T10:30:00Z"));

      List<UsageBilled> bill = of(UsageBilled.class, k.tick(Instant.parse(
          "2026-11-02T10:30:01Z")));

      // 06:00–10:00 PEAK 1.2, 10:00–18:00 FLAT 0.6; guaranteed use pays 70%
      assertThat(bill).extracting(UsageBilled::slotClass, UsageBilled::amount,
          UsageBilled::gpuSeconds).containsExactly(
              tuple(SlotClass.PEAK, new BigDecimal("1.680000"), 7200.0),
              tuple(SlotClass.FLAT, new BigDecimal("0.840000"), 7200.0));
      BillingDay day = k.state.billing().get("search/2026-11-02");
      assertThat(day.amountMicros()).isEqualTo(2_520_000);
      assertThat(day.microGpuSeconds()).isEqualTo(14_400_000_000L);
      assertThat(day.amountMicrosBySlot()).containsEntry("PEAK", 1_680_000L)
          .containsEntry("FLAT", 840_000L);
    }

    @Test
    void shouldBillALongRunEveryMeteringIntervalOnTicks() {
      KernelDriver k = new KernelDriver();
      k.submit(search("g1", 4, Instant.parse("2026-11-02T09:00:00Z")));
      k.tick(Instant.parse("2026-11-02T09:00:01Z"));
      k.started("g1", Instant.parse("2026-11-02T10:00:00Z"));

      assertThat(of(UsageBilled.class, k.tick(Instant.parse("2026-11-02T10:59:59Z")))).isEmpty();
      assertThat(of(UsageBilled.class, k.tick(Instant.parse("2026-11-02T11:00:00Z"))))
          .singleElement().satisfies(b -> {
            assertThat(b.from()).isEqualTo(Instant.parse("2026-11-02T10:00:00Z"));
            assertThat(b.to()).isEqualTo(Instant.parse("2026-11-02T11:00:00Z"));
          });
    }
  }
}
