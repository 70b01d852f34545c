package io.tideline.core.forecast;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The forecast accuracy harness (issue #21): runs forecasters over a demand series window by
 * window, each forecast made {@code horizon} before its window starts from the windows complete
 * by then, and scores the windows of the test period.
 *
 * <p>Metrics, over the test windows that have data:
 * <ul>
 *   <li><b>MAPE</b> of the median: mean of |p50 − actual| / actual;
 *   <li><b>WAPE</b> of the median: Σ|p50 − actual| / Σ actual (weights busy windows more);
 *   <li><b>coverage</b>: share of windows whose actual is at most the reservation (the p90 in
 *       whole GPUs, as the planner rounds it);
 *   <li><b>over-reservation</b>: Σ max(0, reserved − actual) / Σ actual — GPUs held above demand,
 *       as a share of demand;
 *   <li><b>under-forecast minutes</b>: minutes of windows whose actual exceeds the reservation
 *       (what F3's over-issue has to cover).
 * </ul>
 * A window without data (a gap) is neither forecast target nor history: it is skipped. The
 * baselines are point forecasts and reserve their point: persistence (the last window known at
 * forecast time), same time yesterday, same time last week, the mean of the same window over the
 * last 7 days; a baseline whose reference window is missing falls back to persistence.
 */
final class AccuracyHarness {

  /** A series of demand windows, GPUs; {@code NaN} = no data (a gap). */
  record Series(String name, Instant start, Duration step, double[] gpus, int testFrom) {

    Instant time(int i) {
      return start.plus(step.multipliedBy(i));
    }

    boolean present(int i) {
      return i >= 0 && i < gpus.length && !Double.isNaN(gpus[i]);
    }

    int perDay() {
      return (int) (Duration.ofDays(1).toSeconds() / step.toSeconds());
    }
  }

  /** One forecast of one window: median and reservation quantile, and its basis. */
  record Prediction(double p50, double p90, ForecastBasis basis) {}

  /** Makes the forecast of window {@code target}, knowing the windows complete by {@code asOf}. */
  interface Forecaster {
    Prediction predict(int target, Instant asOf);
  }

  /** The scores of one forecaster on one series at one horizon. */
  record Score(String series, Duration horizon, String forecaster, int windows, double mape,
      double wape, double coverage, double overReservation, long underMinutes) {

    String row() {
      return String.format(Locale.ROOT, "| %s | %s | %s | %d | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %d |",
          series, horizon.toMinutes() >= 60 ? horizon.toHours() + " h" : horizon.toMinutes() + " min",
          forecaster, windows, 100 * mape, 100 * wape, 100 * coverage, 100 * overReservation,
          underMinutes);
    }
  }

  static final String HEADER = "| trace | horizon | forecaster | windows | MAPE p50 | WAPE p50 "
      + "| coverage p90 | over-reservation | under-forecast min |\n"
      + "|---|---|---|---:|---:|---:|---:|---:|---:|";

  /** Relative accuracy used to round reservations to whole GPUs (the sketches' α). */
  private static final double ALPHA = ForecastConfig.DEFAULTS.sketchRelativeAccuracy();

  private AccuracyHarness() {}

  /** Scores {@code forecaster} on the test windows of {@code series}. */
  static Score score(Series series, Duration horizon, String name, Forecaster forecaster) {
    return score(series, horizon, name, forecaster, new ArrayList<>());
  }

  /** Scores, also collecting every test window's prediction (null where none was made). */
  static Score score(Series series, Duration horizon, String name, Forecaster forecaster,
      List<Prediction> predictions) {
    double ape = 0;
    double ae = 0;
    double actual = 0;
    double spare = 0;
    int covered = 0;
    int n = 0;
    long under = 0;
    for (int i = 0; i < series.gpus().length; i++) {
      Prediction p = forecaster.predict(i, series.time(i).minus(horizon));
      if (i < series.testFrom() || !series.present(i)) {
        continue;
      }
      predictions.add(p);
      double a = series.gpus()[i];
      double p50 = p == null ? 0 : p.p50();
      int reserved = p == null ? 0 : SlotForecast.wholeGpus(p.p90(), ALPHA);
      n++;
      ape += a > 0 ? Math.abs(p50 - a) / a : 0;
      ae += Math.abs(p50 - a);
      actual += a;
      spare += Math.max(0, reserved - a);
      if (a <= reserved) {
        covered++;
      } else {
        under += series.step().toMinutes();
      }
    }
    return new Score(series.name(), horizon, name, n, ape / n, ae / actual, covered / (double) n,
        spare / actual, under);
  }

  /** Every forecaster of the table, fresh, for {@code series}. */
  static List<Named> forecasters(Series series) {
    return List.of(
        new Named("Tideline", tideline(series, ForecastConfig.DEFAULTS)),
        new Named("Tideline before (#4: same-slot x level)", before(series)),
        new Named("persistence", persistence(series)),
        new Named("same time yesterday", lagged(series, series.perDay())),
        new Named("same time last week", lagged(series, 7 * series.perDay())),
        new Named("7-day slot mean", slotMean(series, 7)));
  }

  /** A forecaster and its name in the table. */
  record Named(String name, Forecaster forecaster) {}

  /**
   * Tideline's forecaster as the kernel runs it ({@link DemandForecaster}): the windows complete
   * by {@code asOf} recorded into a {@link SlotHistory} on the series' grid (one sample per
   * window, at its start), the forecasts settled as their windows complete.
   */
  static Forecaster tideline(Series series, ForecastConfig base) {
    ForecastConfig config = base.withSlotLength(series.step());
    DemandForecaster forecaster = new DemandForecaster(config);
    HolidayCalendar calendar = HolidayCalendar.none(ZoneOffset.UTC);
    return new Forecaster() {
      SlotHistory history = SlotHistory.empty(series.name(), ZoneOffset.UTC, config);
      Calibration calibration = Calibration.EMPTY;
      int recorded;

      @Override
      public Prediction predict(int target, Instant asOf) {
        recorded = recordUntil(series, asOf, recorded, (i) -> history =
            history.plus(series.time(i), series.gpus()[i]));
        calibration = forecaster.settle(calibration, history, calendar, asOf);
        SlotForecast f = forecaster.forecast(history, calibration, series.time(target), calendar,
            asOf);
        calibration = forecaster.remember(calibration, f);
        return f.basis() == ForecastBasis.NO_HISTORY ? null
            : new Prediction(f.p50(), f.p90(), f.basis());
      }
    };
  }

  /** The forecaster of issue #4: same-slot quantiles × the level factor, 14-day spread. */
  static Forecaster before(Series series) {
    ForecastConfig config = ForecastConfig.DEFAULTS.withSlotLength(series.step());
    SlotForecaster forecaster = new SlotForecaster(config);
    HolidayCalendar calendar = HolidayCalendar.none(ZoneOffset.UTC);
    return new Forecaster() {
      SlotHistory history = SlotHistory.empty(series.name(), ZoneOffset.UTC, config);
      int recorded;

      @Override
      public Prediction predict(int target, Instant asOf) {
        recorded = recordUntil(series, asOf, recorded, (i) -> history =
            history.plus(series.time(i), series.gpus()[i]));
        SlotForecast f = forecaster.forecast(history, series.time(target), calendar, asOf);
        return f.basis() == ForecastBasis.NO_HISTORY ? null
            : new Prediction(f.p50(), f.p90(), f.basis());
      }
    };
  }

  /** The last window with data complete by {@code asOf}. */
  static Forecaster persistence(Series series) {
    return (target, asOf) -> {
      int i = lastComplete(series, asOf);
      while (i >= 0 && !series.present(i)) {
        i--;
      }
      return i < 0 ? null : new Prediction(series.gpus()[i], series.gpus()[i], null);
    };
  }

  /** The window {@code lag} windows before the target (persistence if it has no data). */
  static Forecaster lagged(Series series, int lag) {
    Forecaster fallback = persistence(series);
    return (target, asOf) -> series.present(target - lag)
        ? new Prediction(series.gpus()[target - lag], series.gpus()[target - lag], null)
        : fallback.predict(target, asOf);
  }

  /** The mean of the same window over the last {@code days} days with data. */
  static Forecaster slotMean(Series series, int days) {
    Forecaster fallback = persistence(series);
    return (target, asOf) -> {
      double sum = 0;
      int n = 0;
      for (int d = 1; d <= days; d++) {
        int i = target - d * series.perDay();
        if (series.present(i)) {
          sum += series.gpus()[i];
          n++;
        }
      }
      return n == 0 ? fallback.predict(target, asOf) : new Prediction(sum / n, sum / n, null);
    };
  }

  /** Index of the last window that ends at or before {@code asOf} (-1 if none). */
  static int lastComplete(Series series, Instant asOf) {
    long seconds = Duration.between(series.start(), asOf).toSeconds();
    return (int) Math.floorDiv(seconds, series.step().toSeconds()) - 1;
  }

  private static int recordUntil(Series series, Instant asOf, int from,
      java.util.function.IntConsumer record) {
    int last = Math.min(lastComplete(series, asOf), series.gpus().length - 1);
    int i = from;
    for (; i <= last; i++) {
      if (series.present(i)) {
        record.accept(i);
      }
    }
    return Math.max(from, i);
  }

  /** The markdown table of {@code scores}. */
  static String table(List<Score> scores) {
    StringBuilder out = new StringBuilder(HEADER).append('\n');
    scores.forEach(s -> out.append(s.row()).append('\n'));
    return out.toString();
  }

  /** Scores every forecaster of the table on {@code series} at each horizon. */
  static List<Score> all(Series series, List<Duration> horizons,
      Function<Series, List<Named>> forecasters) {
    List<Score> out = new ArrayList<>();
    for (Duration h : horizons) {
      for (Named f : forecasters.apply(series)) {
        out.add(score(series, h, f.name(), f.forecaster()));
      }
    }
    return out;
  }
}
