package io.tideline.core.quota;

import io.tideline.core.trace.TraceEntry;
import static io.tideline.core.quota.QuotaTestKit.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SegmentCalculatorTest {

  final SegmentCalculator calc = new SegmentCalculator(QuotaConfig.DEFAULTS);

  @Test
  void shouldLockSeventyPercentOfEachOnlinePeakAndLendTheRest() {
    QuotaSegments s = calc.compute(100, Map.of("ranker", 40.0, "chat", 5.0),
        Map.of("llm-pretrain", 16.0, "rec-daily", 8.0));

    assertThat(s.onlineByService()).containsExactly(Map.entry("chat", 4.0), Map.entry("ranker", 28.0));
    assertThat(s.onlineGuaranteed()).isEqualTo(32);
    assertThat(s.offlineGuaranteed()).isEqualTo(24);
    assertThat(s.sharedPool()).isEqualTo(44);
    assertThat(s.overcommitted()).isZero();
    assertThat(s.trace()).extracting(TraceEntry::toString).containsExactly(
        "chat | Q1 online guaranteed | locked 4 | ceil(0.7 × peak 5)",
        "ranker | Q1 online guaranteed | locked 28 | ceil(0.7 × peak 40)",
        "llm-pretrain | Q1 offline guaranteed | reserved 16 | key training job minimum GPUs",
        "rec-daily | Q1 offline guaranteed | reserved 8 | key training job minimum GPUs",
        "fleet | Q1 shared pool | lent by idleness | fleet 100 − online 32 − offline 24 = 44");
  }

  @Test
  void shouldNotRoundAnExactProductUpByFloatingPointNoise() {
    // 0.7 × 10 is 7.000000000000001 in binary floating point.
    assertThat(calc.onlineGuarantee(10)).isEqualTo(7);
    assertThat(calc.onlineGuarantee(10.01)).isEqualTo(8);
    assertThat(calc.onlineGuarantee(0)).isZero();
  }

  @Test
  void shouldFlagAFleetSmallerThanItsGuarantees() {
    QuotaSegments s = calc.compute(30, Map.of("ranker", 40.0), Map.of("pretrain", 8.0));

    assertThat(s.sharedPool()).isZero();
    assertThat(s.overcommitted()).isEqualTo(6);
    assertThat(s.trace()).last().extracting(TraceEntry::outcome).isEqualTo("overcommitted");
  }

  @Test
  void shouldFollowTheConfiguredFraction() {
    SegmentCalculator half = new SegmentCalculator(new QuotaConfig(0.5,
        QuotaConfig.DEFAULTS.fairShareHalfLife(), QuotaConfig.DEFAULTS.preemptionCooldown(), "r"));

    assertThat(half.compute(64, Map.of("ranker", 40.0), Map.of()).onlineGuaranteed()).isEqualTo(20);
  }

  @Test
  void shouldReviewGuaranteesWhenANewPeakArrives() {
    GuaranteeReview review = new GuaranteeReview(QuotaConfig.DEFAULTS);

    var changes = review.onNewPeak(Map.of("ranker", 40.0, "chat", 5.0), "ranker", 50.0, T0);

    assertThat(changes).singleElement().satisfies(c -> {
      assertThat(c.service()).isEqualTo("ranker");
      assertThat(c.oldGuaranteeGpus()).isEqualTo(28);
      assertThat(c.newGuaranteeGpus()).isEqualTo(35);
      assertThat(c.delta()).isEqualTo(7);
      assertThat(c.reason()).isEqualTo("peak rose 40 → 50: guarantee 28 → 35");
      assertThat(c.at()).isEqualTo(T0);
    });
  }

  @Test
  void shouldStayQuietWhenTheRoundedGuaranteeDoesNotMove() {
    GuaranteeReview review = new GuaranteeReview(QuotaConfig.DEFAULTS);

    // ceil(0.7 × 9.9) = ceil(6.93) = 7 = ceil(0.7 × 10)
    assertThat(review.onNewPeak(Map.of("ranker", 9.9), "ranker", 10.0, T0)).isEmpty();
  }

  @Test
  void shouldReportServicesThatAppearFallOrRetireWithTheTide() {
    GuaranteeReview review = new GuaranteeReview(QuotaConfig.DEFAULTS);

    var changes = review.review(Map.of("ranker", 40.0, "legacy", 10.0),
        Map.of("ranker", 30.0, "chat", 20.0), T0);

    assertThat(changes).extracting(GuaranteeChange::reason).containsExactly(
        "new service: peak 20 → guarantee 14",
        "service retired: guarantee 7 released",
        "peak fell 40 → 30: guarantee 28 → 21");
  }
}
