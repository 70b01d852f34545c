package io.tideline.core.forecast;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.forecast.AccuracyHarness.Prediction;
import io.tideline.core.forecast.AccuracyHarness.Score;
import io.tideline.core.forecast.AccuracyHarness.Series;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Tideline's forecaster on each synthetic stress series of the accuracy harness (issue #21), 15
 * minutes ahead: what it must do on that stress, against persistence and against the forecaster
 * of issue #4.
 */
class ForecastStressTest {

  static final Duration AHEAD = ReservationConfig.DEFAULTS.leadTime();

  static Score tideline(Series s, List<Prediction> predictions) {
    return AccuracyHarness.score(s, AHEAD, "Tideline",
        AccuracyHarness.tideline(s, ForecastConfig.DEFAULTS), predictions);
  }

  static Score tideline(Series s) {
    return tideline(s, new ArrayList<>());
  }

  static Score persistence(Series s) {
    return AccuracyHarness.score(s, AHEAD, "persistence", AccuracyHarness.persistence(s));
  }

  static Score before(Series s) {
    return AccuracyHarness.score(s, AHEAD, "before", AccuracyHarness.before(s));
  }

  @Test
  void shouldFollowALevelShiftWithoutLosingCoverage() {
    Series s = DemandSeries.levelShift();
    Score t = tideline(s);

    assertThat(t.mape()).isLessThan(persistence(s).mape());
    assertThat(t.coverage()).isGreaterThanOrEqualTo(0.95);
    assertThat(t.overReservation()).isLessThan(0.15);
  }

  @Test
  void shouldTrackARampWithLessOverReservationThanTheSameSlotSpread() {
    Series s = DemandSeries.ramp();
    Score t = tideline(s);

    assertThat(t.mape()).isLessThan(persistence(s).mape());
    assertThat(t.coverage()).isGreaterThanOrEqualTo(0.90);
    // #4's p90 carried the 14-day spread of a growing series: 20% over demand.
    assertThat(t.overReservation()).isLessThan(before(s).overReservation() / 2);
  }

  @Test
  void shouldCoverBurstyDemandAtLeastNinetyPercentOfTheTime() {
    Series s = DemandSeries.burst();
    Score t = tideline(s);

    assertThat(t.mape()).isLessThan(persistence(s).mape());
    assertThat(t.coverage()).isGreaterThanOrEqualTo(0.90);
    assertThat(t.coverage()).isGreaterThan(before(s).coverage());
  }

  @Test
  void shouldNotShrinkTheForecastAfterATelemetryGap() {
    Series gapped = DemandSeries.gap();
    // The same demand with the gaps filled in from the tide: what the gaps hid.
    double[] filled = gapped.gpus().clone();
    for (int i = 0; i < filled.length; i++) {
      if (Double.isNaN(filled[i])) {
        filled[i] = Math.ceil(DemandSeries.tide(i));
      }
    }
    Series noGap = new Series("no gap", gapped.start(), gapped.step(), filled, gapped.testFrom());
    List<Prediction> withGap = new ArrayList<>(); // one per scored window with data
    List<Prediction> withoutGap = new ArrayList<>(); // one per scored window
    Score scored = tideline(gapped, withGap);
    tideline(noGap, withoutGap);

    int k = 0;
    int compared = 0;
    for (int i = gapped.testFrom(); i < filled.length; i++) {
      if (!gapped.present(i)) {
        continue;
      }
      Prediction g = withGap.get(k++);
      Prediction n = withoutGap.get(i - gapped.testFrom());
      if (!gapped.present(i - 3)) { // the forecast was made right after a gap (3 windows ahead)
        // no lower than with the data present: the gap was missing data, not zero demand
        assertThat(g.p50()).as("p50 after the gap, window %d", i)
            .isGreaterThanOrEqualTo(0.9 * n.p50());
        assertThat(g.p90()).as("p90 after the gap, window %d", i)
            .isGreaterThanOrEqualTo(0.9 * n.p90());
        compared++;
      }
    }
    assertThat(compared).isEqualTo(7 * 3);
    assertThat(scored.coverage()).isGreaterThanOrEqualTo(0.90);
  }

  @Test
  void shouldFollowAWeeklyCycleBetterThanPersistence() {
    Series s = DemandSeries.weekly();
    Score t = tideline(s);

    assertThat(t.mape()).isLessThan(persistence(s).mape());
    assertThat(t.coverage()).isGreaterThanOrEqualTo(0.90);
  }

  @Test
  void shouldForecastANewServiceFromItsFirstHourFlaggedAsColdStart() {
    Series s = DemandSeries.coldStart();
    List<Prediction> predictions = new ArrayList<>();
    Score t = tideline(s, predictions);

    // windows 0-2 of the first day cannot be forecast 15 minutes ahead from nothing; from the
    // fourth window (00:30, 15 minutes after the first complete one) every window has one
    assertThat(predictions.subList(0, 3)).containsOnlyNulls();
    for (int i = 3; i < 6; i++) {
      assertThat(predictions.get(i)).as("window %d of the first hour", i).isNotNull();
      assertThat(predictions.get(i).basis()).isEqualTo(ForecastBasis.COLD_START);
    }
    assertThat(predictions.subList(3, DemandSeries.PER_DAY))
        .allMatch(p -> p != null && p.basis() == ForecastBasis.COLD_START);
    assertThat(predictions.get(DemandSeries.PER_DAY + 10).basis())
        .isEqualTo(ForecastBasis.REGULAR_HISTORY);
    assertThat(t.coverage()).isGreaterThanOrEqualTo(0.95);
    assertThat(t.mape()).isLessThan(persistence(s).mape());
  }
}
