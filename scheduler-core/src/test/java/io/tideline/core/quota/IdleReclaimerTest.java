package io.tideline.core.quota;

import static io.tideline.core.quota.QuotaTestKit.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class IdleReclaimerTest {

  final IdleReclaimer reclaimer = new IdleReclaimer(IdleConfig.DEFAULTS);

  /** Samples every 5 minutes over the hour ending at T0, all at {@code u} except the last at {@code last}. */
  static List<UtilisationSample> hour(double u, double last) {
    List<UtilisationSample> out = new ArrayList<>();
    for (int m = 60; m >= 5; m -= 5) {
      out.add(new UtilisationSample(T0.minus(Duration.ofMinutes(m)), u));
    }
    out.add(new UtilisationSample(T0, last));
    return out;
  }

  @Test
  void shouldShrinkFourGpusToTwoAndStretchTenHoursToFifteen() {
    IdleRecommendation r = reclaimer.assess("exp-1", 4, Duration.ofHours(10), hour(0.40, 0.45), T0);

    assertThat(r.action()).isEqualTo(IdleRecommendation.Action.SHRINK);
    assertThat(r.recommendedGpus()).isEqualTo(2);
    assertThat(r.etaBefore()).isEqualTo(Duration.ofHours(10));
    assertThat(r.etaAfter()).isEqualTo(Duration.ofHours(15));
    assertThat(r.reason()).isEqualTo("under 50% utilisation: shrink 4 → 2 GPUs");
    assertThat(r.trace()).last().satisfies(t -> assertThat(t.detail()).isEqualTo(
        "peak 45% < 50% for PT1H; ceil(4 × 45%) = 2; ETA PT10H × 1.5^log2(4/2) = PT15H"));
  }

  @Test
  void shouldKeepAJobThatTouches50PercentOnceButShrinkJustBelow() {
    assertThat(reclaimer.assess("j", 4, null, hour(0.30, 0.50), T0).action())
        .isEqualTo(IdleRecommendation.Action.KEEP);
    assertThat(reclaimer.assess("j", 4, null, hour(0.30, 0.4999), T0).action())
        .isEqualTo(IdleRecommendation.Action.SHRINK);
  }

  @Test
  void shouldSizeTheShrinkToThePeakAndStretchPerHalving() {
    IdleRecommendation r = reclaimer.assess("j", 8, Duration.ofHours(10), hour(0.2, 0.24), T0);

    assertThat(r.recommendedGpus()).isEqualTo(2);
    assertThat(r.etaAfter()).isEqualTo(Duration.ofMinutes(22 * 60 + 30));
  }

  @Test
  void shouldReclaimAJobIdleAllWindowLong() {
    IdleRecommendation r = reclaimer.assess("idle", 8, Duration.ofHours(3), hour(0.0, 0.049), T0);

    assertThat(r.action()).isEqualTo(IdleRecommendation.Action.RECLAIM);
    assertThat(r.recommendedGpus()).isZero();
    assertThat(r.etaAfter()).isNull();
    assertThat(r.reason()).isEqualTo("idle: 8 GPUs reclaimable");
  }

  @Test
  void shouldShrinkRatherThanReclaimAJobThatWokeUpAt5Percent() {
    assertThat(reclaimer.assess("j", 8, null, hour(0.0, 0.05), T0).action())
        .isEqualTo(IdleRecommendation.Action.SHRINK);
  }

  @Test
  void shouldKeepWhenTheWindowIsNotFullyObserved() {
    List<UtilisationSample> gappy = new ArrayList<>(hour(0.0, 0.0));
    gappy.removeIf(s -> s.at().equals(T0.minus(Duration.ofMinutes(30)))
        || s.at().equals(T0.minus(Duration.ofMinutes(25))));

    IdleRecommendation r = reclaimer.assess("j", 8, null, gappy, T0);

    assertThat(r.action()).isEqualTo(IdleRecommendation.Action.KEEP);
    assertThat(r.trace()).singleElement().satisfies(t -> assertThat(t.detail())
        .isEqualTo("gap 2026-11-02T13:25:00Z → 2026-11-02T13:40:00Z exceeds PT5M"));
    assertThat(reclaimer.assess("j", 8, null, List.of(), T0).reason())
        .isEqualTo("window PT1H not fully observed");
  }

  @Test
  void shouldNotShrinkASingleGpu() {
    assertThat(reclaimer.assess("j", 1, null, hour(0.3, 0.3), T0).action())
        .isEqualTo(IdleRecommendation.Action.KEEP);
  }
}
