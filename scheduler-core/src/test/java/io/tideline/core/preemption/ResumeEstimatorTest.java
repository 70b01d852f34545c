package io.tideline.core.preemption;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The resume estimate prefers the queue, then the next forecast trough, then the retry hint (P7). */
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
  void shouldNotPromiseToResumeNowWhenEvictedInsideATrough() {
    // Evicted at 23:00 inside tonight's trough, sent as 15-minute slots: the room is taken, so
    // the ETA is tomorrow night's trough, not 23:00 nor the next slot of tonight's.
    List<TroughSlot> slots = new java.util.ArrayList<>();
    for (String night : List.of("2026-11-02T22:00:00Z", "2026-11-03T22:00:00Z")) {
      Instant t = Instant.parse(night);
      for (int i = 0; i < 32; i++) {
        slots.add(new TroughSlot(t.plusSeconds(900L * i), t.plusSeconds(900L * (i + 1))));
      }
    }
    java.util.Collections.shuffle(slots, new java.util.Random(7));
    Instant inside = Instant.parse("2026-11-02T23:00:00Z");
    assertThat(ResumeEstimator.estimate(inside, null, slots, null))
        .isEqualTo(new ResumeEstimate(Instant.parse("2026-11-03T22:00:00Z"),
            ResumeEstimate.Basis.FORECAST_TROUGH));
  }

  @Test
  void shouldFallBackToTheRetryHintWhenTheOnlyTroughIsUnderWay() {
    Instant inside = Instant.parse("2026-11-02T23:00:00Z");
    Instant hint = Instant.parse("2026-11-03T01:00:00Z");
    assertThat(ResumeEstimator.estimate(inside, null, List.of(NIGHT), hint))
        .isEqualTo(new ResumeEstimate(hint, ResumeEstimate.Basis.RETRY_HINT));
  }

  @Test
  void shouldTreatOverlappingSlotsAsOnePeriod() {
    TroughSlot a = new TroughSlot(Instant.parse("2026-11-02T08:00:00Z"),
        Instant.parse("2026-11-02T09:30:00Z"));
    TroughSlot b = new TroughSlot(Instant.parse("2026-11-02T09:00:00Z"),
        Instant.parse("2026-11-02T10:00:00Z"));
    assertThat(ResumeEstimator.estimate(NOW, null, List.of(b, a, NIGHT), null).at())
        .isEqualTo(NIGHT.start());
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
