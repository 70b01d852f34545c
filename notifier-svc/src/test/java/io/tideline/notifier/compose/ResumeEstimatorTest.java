package io.tideline.notifier.compose;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The resume estimate prefers the queue, then the forecast trough, then the retry hint (P7). */
class ResumeEstimatorTest {

  static final Instant NOW = Instant.parse("2026-11-02T09:00:00Z");
  static final TroughSlot NIGHT = new TroughSlot(Instant.parse("2026-11-02T22:00:00Z"),
      Instant.parse("2026-11-03T06:00:00Z"));
  static final Instant HINT = Instant.parse("2026-11-02T23:30:00Z");

  @Test
  void shouldUseThePlacementQueueEstimateFirst() {
    Instant q = Instant.parse("2026-11-02T10:15:00Z");
    assertThat(ResumeEstimator.estimate(NOW, q, List.of(NIGHT), HINT))
        .isEqualTo(new ResumeEstimate(q, ResumeEstimate.Basis.QUEUE));
  }

  @Test
  void shouldNeverEstimateInThePast() {
    assertThat(ResumeEstimator.estimate(NOW, NOW.minusSeconds(60), List.of(), null).at())
        .isEqualTo(NOW);
  }

  @Test
  void shouldFallBackToTheNextTroughSlotIgnoringPastOnes() {
    TroughSlot yesterday = new TroughSlot(Instant.parse("2026-11-01T22:00:00Z"),
        Instant.parse("2026-11-02T06:00:00Z"));
    assertThat(ResumeEstimator.estimate(NOW, null, List.of(yesterday, NIGHT), HINT))
        .isEqualTo(new ResumeEstimate(NIGHT.start(), ResumeEstimate.Basis.FORECAST_TROUGH));
  }

  @Test
  void shouldResumeNowWhenAlreadyInATrough() {
    Instant inside = Instant.parse("2026-11-02T23:00:00Z");
    assertThat(ResumeEstimator.estimate(inside, null, List.of(NIGHT), null).at()).isEqualTo(inside);
  }

  @Test
  void shouldFallBackToTheRetryHintThenToNothing() {
    assertThat(ResumeEstimator.estimate(NOW, null, List.of(), HINT))
        .isEqualTo(new ResumeEstimate(HINT, ResumeEstimate.Basis.RETRY_HINT));
    assertThat(ResumeEstimator.estimate(NOW, null, List.of(), null).basis())
        .isEqualTo(ResumeEstimate.Basis.NONE);
    assertThat(ResumeEstimate.Basis.NONE.code()).isEmpty();
  }
}
