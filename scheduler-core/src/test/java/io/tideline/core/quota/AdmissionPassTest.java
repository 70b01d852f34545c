package io.tideline.core.quota;

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
import java.util.List;
import org.junit.jupiter.api.Test;

class AdmissionPassTest {

  final AdmissionPass pass = new AdmissionPass(QuotaConfig.DEFAULTS);
  final QuotaDefinition def = standard();

  @Test
  void shouldGiveAContendedPoolToTheQueueBelowItsGuarantee() {
    // Free to borrow: 4 GPUs, of which 2 are ads training's own idle floor (lent).
    // Ads (below guarantee, heavy past user, later submitter) and search (at guarantee) both
    // need 2 borrowed GPUs; only one of them fits.
    QuotaLedger l = ledger()
        .admit(new Allocation("history", ADS_TRAINING, 8, 0, T0.minus(Duration.ofDays(1))))
        .release("history", T0.minus(Duration.ofHours(1)))
        .admit(new Allocation("s", SEARCH_TRAINING, 8, 2, T0))
        .admit(new Allocation("i", SEARCH_INFERENCE, 12, 8, T0))
        .admit(new Allocation("a", ADS_TRAINING, 6, 0, T0))
        .admit(new Allocation("b", ADS_BATCH, 4, 4, T0));
    assertThat(SharedPool.of(def, l).freeGpus()).isEqualTo(4);

    AdmissionPass.Result r = pass.run(List.of(
        WaitingJob.fresh(job("search-2").gpus(2).submittedAt(T0).build()),
        WaitingJob.fresh(job("ads-4").ads().gpus(4).submittedAt(T0.plusSeconds(60)).build())),
        def, l, T0.plusSeconds(120));

    assertThat(r.admitted()).singleElement().satisfies(v -> {
      assertThat(v.jobId()).isEqualTo("ads-4");
      assertThat(v.verdict()).isEqualTo(Verdict.SHARED);
      assertThat(v.guaranteedGpus()).isEqualTo(2);
    });
    assertThat(r.verdicts()).last().satisfies(v -> {
      assertThat(v.jobId()).isEqualTo("search-2");
      assertThat(v.reason()).isEqualTo("shared pool contended");
    });
    assertThat(r.trace().get(0).subject()).isEqualTo(ADS_TRAINING);
  }

  @Test
  void shouldBackfillASmallerJobWhenTheHeadOfItsQueueCannotStart() {
    AdmissionPass.Result r = pass.run(List.of(
        WaitingJob.fresh(job("huge").gpus(8).nonPreemptible().build()),
        WaitingJob.fresh(job("small").gpus(4).submittedAt(T0.plusSeconds(1)).build())),
        def, ledger().admit(new Allocation("x", SEARCH_TRAINING, 6, 0, T0)), T0);

    assertThat(r.admitted()).extracting(AdmissionVerdict::jobId).containsExactly("small");
    assertThat(r.verdicts()).extracting(AdmissionVerdict::verdict)
        .containsExactly(Verdict.SHARED, Verdict.QUEUED);
    assertThat(r.ledger().allocation("small")).isPresent();
  }

  @Test
  void shouldServeEveryQueueInOnePassAndRejectJobsWithoutAQueue() {
    AdmissionPass.Result r = pass.run(List.of(
        WaitingJob.fresh(job("s1").gpus(4).build()),
        WaitingJob.fresh(job("s2").gpus(4).submittedAt(T0.plusSeconds(5)).build()),
        WaitingJob.fresh(job("a1").ads().gpus(8).build()),
        WaitingJob.fresh(job("g1").tenant("games", "x").build())), def, ledger(), T0);

    assertThat(r.verdicts()).extracting(v -> v.jobId() + ":" + v.verdict()).containsExactly(
        "g1:REJECTED", "a1:GUARANTEED", "s1:GUARANTEED", "s2:GUARANTEED");
    assertThat(r.ledger().totalUsed()).isEqualTo(16);
  }
}
