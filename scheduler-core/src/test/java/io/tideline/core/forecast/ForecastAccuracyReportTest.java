package io.tideline.core.forecast;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.forecast.AccuracyHarness.Score;
import io.tideline.core.forecast.AccuracyHarness.Series;
import io.tideline.core.slots.SlotClass;
import io.tideline.core.slots.SlotClassifier;
import io.tideline.core.slots.SlotClassifierConfig;
import io.tideline.core.slots.SlotMap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The forecast accuracy report (issues #4 and #21), one command:
 * {@code ./mvnw -B -ntp -pl scheduler-core test -Dtest=ForecastAccuracyReportTest
 * -Dsurefire.failIfNoSpecifiedTests=false}. It scores Tideline's forecaster, the forecaster of
 * issue #4 and four baselines on the shared ServeGen trace and on the synthetic stress series, 15
 * minutes and 1 hour ahead, prints the table and writes it to
 * {@code scheduler-core/target/forecast-accuracy.md} (the table in docs/forecast-accuracy.md is
 * that file). The assertions are the targets on the shared trace.
 */
class ForecastAccuracyReportTest {

  static final Duration FIFTEEN_MINUTES = ReservationConfig.DEFAULTS.leadTime();
  static final List<Duration> HORIZONS = List.of(FIFTEEN_MINUTES, Duration.ofHours(1));

  private static Series servegen;
  private static List<Score> shared;

  @BeforeAll
  static void scoreTheSharedTrace() {
    servegen = DemandSeries.servegen();
    shared = AccuracyHarness.all(servegen, HORIZONS, AccuracyHarness::forecasters);
  }

  private static Score shared(Duration horizon, String forecaster) {
    return shared.stream().filter(s -> s.horizon().equals(horizon)
        && s.forecaster().equals(forecaster)).findFirst().orElseThrow();
  }

  @Test
  void shouldBeatPersistenceAndCoverNinetyPercentOnTheSharedTrace() {
    Score tideline = shared(FIFTEEN_MINUTES, "Tideline");
    Score persistence = shared(FIFTEEN_MINUTES, "persistence");
    Score before = shared(FIFTEEN_MINUTES, "Tideline before (#4: same-slot x level)");

    assertThat(tideline.windows()).isEqualTo(576);
    assertThat(tideline.mape()).isLessThanOrEqualTo(persistence.mape());
    assertThat(tideline.coverage()).isGreaterThanOrEqualTo(0.90);
    // Issue #21 asks for <= 25%; no forecast we found reaches it at 90% coverage on this trace
    // (docs/forecast-accuracy.md, "What bounds over-reservation"). Held: clearly below #4's.
    assertThat(tideline.overReservation()).isLessThan(before.overReservation() - 0.05);
  }

  @Test
  void shouldWriteTheTable() throws IOException {
    List<Score> all = new ArrayList<>(shared);
    for (Series s : List.of(DemandSeries.levelShift(), DemandSeries.ramp(), DemandSeries.burst(),
        DemandSeries.gap(), DemandSeries.weekly(), DemandSeries.coldStart())) {
      all.addAll(AccuracyHarness.all(s, HORIZONS, AccuracyHarness::forecasters));
    }
    String table = AccuracyHarness.table(all);
    String tradeOff = marginTradeOff();
    String bound = hindsightBound();
    System.out.println("[F1] forecast accuracy (issue #21)\n" + table + "\n" + tradeOff + "\n"
        + bound);
    Path out = Path.of("target", "forecast-accuracy.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, table + "\n" + tradeOff + "\n" + bound);

    assertThat(all).hasSize(7 * HORIZONS.size() * 6);
    assertThat(table).contains("| ServeGen m-large (shared) | 15 min | Tideline |");
  }

  /** Coverage against over-reservation on the shared trace, 15 min ahead, by coverage margin. */
  private static String marginTradeOff() {
    StringBuilder out = new StringBuilder("| coverage margin | MAPE p50 | coverage p90 "
        + "| over-reservation | under-forecast min |\n|---:|---:|---:|---:|---:|\n");
    for (double margin : new double[] {0.0, 0.01, 0.02, 0.03, 0.05, 0.07}) {
      ForecastConfig config = ForecastConfig.DEFAULTS.withCalibration(
          CalibrationConfig.DEFAULTS.withCoverageMargin(margin));
      Score s = AccuracyHarness.score(servegen, FIFTEEN_MINUTES, "Tideline",
          AccuracyHarness.tideline(servegen, config));
      out.append(String.format(Locale.ROOT, "| %.2f%s | %.1f%% | %.1f%% | %.1f%% | %d |%n",
          margin, margin == CalibrationConfig.DEFAULTS.coverageMargin() ? " (default)" : "",
          100 * s.mape(), 100 * s.coverage(), 100 * s.overReservation(), s.underMinutes()));
    }
    return out.toString();
  }

  /**
   * The least over-reservation any constant multiple of Tideline's median reaches at 90%
   * coverage on the shared trace, with the multiple chosen in hindsight on the scored windows.
   */
  private static String hindsightBound() {
    List<AccuracyHarness.Prediction> predictions = new ArrayList<>();
    AccuracyHarness.score(servegen, FIFTEEN_MINUTES, "Tideline",
        AccuracyHarness.tideline(servegen, ForecastConfig.DEFAULTS), predictions);
    List<double[]> pairs = new ArrayList<>(); // {p50, actual}
    int k = 0;
    for (int i = servegen.testFrom(); i < servegen.gpus().length; i++) {
      if (servegen.present(i)) {
        pairs.add(new double[] {predictions.get(k++).p50(), servegen.gpus()[i]});
      }
    }
    double best = Double.NaN;
    double bestCoverage = 0;
    for (double c = 1.0; c <= 2.0; c += 0.005) {
      int covered = 0;
      double spare = 0;
      double actual = 0;
      for (double[] p : pairs) {
        int reserved = SlotForecast.wholeGpus(p[0] * c, 0.01);
        covered += p[1] <= reserved ? 1 : 0;
        spare += Math.max(0, reserved - p[1]);
        actual += p[1];
      }
      if (covered >= 0.9 * pairs.size()) {
        best = spare / actual;
        bestCoverage = covered / (double) pairs.size();
        break;
      }
    }
    return String.format(Locale.ROOT, "Hindsight bound (shared trace, 15 min): the smallest "
        + "constant multiple of Tideline's p50 that covers 90%% of the scored windows, chosen on "
        + "those very windows, covers %.1f%% with over-reservation %.1f%%.%n",
        100 * bestCoverage, 100 * best);
  }

  @Test
  void shouldMeasureTheDaytimeShareOfTheTraceInsteadOfAssumingW2s() {
    DemandTrace trace = DemandTrace.load();
    TraceAlignment alignment = TraceAlignment.align(trace.offsets, trace.rps, DemandTrace.STEP,
        DemandShapeConfig.DEFAULTS);
    System.out.printf(Locale.ROOT, "[W2] %d samples; shift %s puts the smoothed daily minimum "
        + "(trace step %d) at 04:00; 08:00-22:00 holds %.1f%% of demand (W2 states > 70%%, a flat "
        + "day 58.3%%)%n", trace.size(), alignment.shift(), alignment.minimumStep(),
        100 * alignment.dayShare());

    assertThat(trace.size()).isEqualTo(2016);
    assertThat(alignment.shift().toSeconds() % DemandTrace.STEP.toSeconds()).isZero();
    // Less tidal than W2 states: measured, reported, and nothing in the product assumes 70%.
    assertThat(alignment.dayShare()).isBetween(0.55, 0.70);
    assertThat(alignment.meetsDayShare(DemandShapeConfig.W2_STATED_DAY_SHARE)).isFalse();
  }

  @Test
  void shouldFindTheTroughOfTheRealDayAtNight() {
    ForecastConfig config = ForecastConfig.DEFAULTS.withSlotLength(DemandTrace.STEP);
    SlotHistory fleet = SlotHistory.empty("fleet", ZoneOffset.UTC, config);
    int trainEnd = servegen.testFrom();
    for (int i = 0; i < trainEnd; i++) {
      fleet.record(servegen.time(i), servegen.gpus()[i]);
    }
    LocalDate after = config.grid(ZoneOffset.UTC).date(servegen.time(0)).plusDays(11);
    double[] profile = fleet.meanProfile(after, config.windowDays(),
        HolidayCalendar.none(ZoneOffset.UTC));

    SlotMap map = new SlotClassifier(SlotClassifierConfig.DEFAULTS)
        .classify(config.grid(ZoneOffset.UTC), profile);

    StringBuilder hours = new StringBuilder("[F4] class by hour:");
    for (int h = 0; h < 24; h++) {
      hours.append(String.format(Locale.ROOT, " %02d=%s", h,
          map.classOf(h * 6).name().charAt(0) + map.classOf(h * 6).name().substring(1, 2)));
    }
    System.out.println(hours);
    List<SlotClass> atFour = new ArrayList<>();
    for (int s = 4 * 6 - 3; s <= 4 * 6 + 3; s++) {
      atFour.add(map.classOf(s));
    }
    assertThat(atFour).doesNotContain(SlotClass.PEAK, SlotClass.FLAT);
    assertThat(map.classes()).contains(SlotClass.PEAK);
  }
}
