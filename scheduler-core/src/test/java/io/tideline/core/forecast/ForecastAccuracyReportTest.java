package io.tideline.core.forecast;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.slots.SlotClass;
import io.tideline.core.slots.SlotClassifier;
import io.tideline.core.slots.SlotClassifierConfig;
import io.tideline.core.slots.SlotMap;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Accuracy of the F1 forecast on the public ServeGen trace (README in test resources): the trace
 * is aligned so its daily minimum falls at 04:00 UTC, scaled to whole GPUs at 5 req/s per GPU,
 * and cut into 10-minute slots (the trace's own resolution, so each slot holds one sample a day).
 * Days 1–10 train; every 10-minute slot of days 11–14 is forecast and compared with the actual
 * demand. Three F1 variants are measured against the naive "same time yesterday" forecaster:
 * <ul>
 *   <li>static: same-slot quantiles of days 1–10 only, as the brief asks (no level correction);
 *   <li>rolling: each test day also sees the test days before it (no level correction);
 *   <li>rolling + level: as the service forecasts, 15 minutes ahead: the history also holds
 *       today's slots complete 15 minutes before the target slot, and the level correction
 *       ({@link ForecastConfig#levelWindow()}, default 1 h) scales the same-slot quantiles.
 * </ul>
 * Named *Test so the default surefire includes run it with every build. Figures are printed;
 * the assertions are sanity bounds that a broken forecaster would break.
 */
class ForecastAccuracyReportTest {

  private static final Instant DAY_ZERO = Instant.parse("2026-11-02T00:00:00Z");
  private static final long TRAIN_SECONDS = Duration.ofDays(10).toSeconds();
  private static final ForecastConfig CONFIG =
      ForecastConfig.DEFAULTS.withSlotLength(DemandTrace.STEP);
  private static final ForecastConfig SAME_SLOT_ONLY = CONFIG.withLevelWindow(Duration.ZERO);
  /** The service forecasts the slot that starts 15 minutes after now (F2 lead time). */
  private static final Duration LEAD = ReservationConfig.DEFAULTS.leadTime();
  private static final HolidayCalendar NO_HOLIDAYS = HolidayCalendar.none(ZoneOffset.UTC);

  private static DemandTrace trace;
  private static TraceAlignment alignment;
  private static Instant[] times;
  private static int[] gpus;

  @BeforeAll
  static void loadAndAlign() {
    trace = DemandTrace.load();
    alignment = TraceAlignment.align(trace.offsets, trace.rps, DemandTrace.STEP,
        DemandShapeConfig.DEFAULTS);
    DemandScaler scaler = new DemandScaler(DemandShapeConfig.DEFAULTS);
    times = new Instant[trace.size()];
    gpus = new int[trace.size()];
    for (int i = 0; i < trace.size(); i++) {
      times[i] = DAY_ZERO.plus(alignment.shift()).plusSeconds(trace.offsets[i]);
      gpus[i] = scaler.wholeGpus(trace.rps[i]);
    }
  }

  @Test
  void shouldAlignTheTraceAndReportItsDaytimeShare() {
    System.out.printf(Locale.ROOT, "[W2] %d samples; shift %s puts the smoothed daily minimum "
        + "(trace step %d) at 04:00; 08:00-22:00 holds %.1f%% of demand (W2 says > 70%%)%n",
        trace.size(), alignment.shift(), alignment.minimumStep(), 100 * alignment.dayShare());

    assertThat(trace.size()).isEqualTo(2016);
    assertThat(alignment.shift().toSeconds() % DemandTrace.STEP.toSeconds()).isZero();
    // This trace is less tidal than W2 states: documented in the report, checked here so a
    // change of data or alignment is noticed.
    assertThat(alignment.dayShare()).isBetween(0.55, 0.70);
    assertThat(alignment.meetsTidalShare(DemandShapeConfig.DEFAULTS)).isFalse();
  }

  @Test
  void shouldForecastTheLastFourDaysWithinSaneErrorAndReport() {
    SlotForecaster forecaster = new SlotForecaster(SAME_SLOT_ONLY);
    SlotForecaster leveled = new SlotForecaster(CONFIG);
    SlotHistory training = SlotHistory.empty("servegen-m-large", ZoneOffset.UTC, CONFIG);
    SlotHistory rolling = SlotHistory.empty("servegen-m-large", ZoneOffset.UTC, CONFIG);
    SlotHistory live = SlotHistory.empty("servegen-m-large", ZoneOffset.UTC, CONFIG);
    int known = 0;
    int firstTest = 0;
    while (trace.offsets[firstTest] < TRAIN_SECONDS) {
      training.record(times[firstTest], gpus[firstTest]);
      firstTest++;
    }
    Metrics staticF1 = new Metrics("F1 static (days 1-10)");
    Metrics rollingF1 = new Metrics("F1 rolling 14 days");
    Metrics levelF1 = new Metrics("F1 rolling + level, 15 min ahead");
    Metrics naive = new Metrics("naive same time yesterday");
    TreeMap<LocalDate, Metrics[]> byDay = new TreeMap<>();
    int recorded = 0;
    for (int i = firstTest; i < trace.size(); i++) {
      // the rolling history sees every sample before the target's local midnight
      LocalDate day = CONFIG.grid(ZoneOffset.UTC).date(times[i]);
      while (CONFIG.grid(ZoneOffset.UTC).date(times[recorded]).isBefore(day)) {
        rolling.record(times[recorded], gpus[recorded]);
        recorded++;
      }
      // the live history sees every sample whose 10 minutes ended by now = slot start - lead
      Instant now = times[i].minus(LEAD);
      while (!times[known].plus(DemandTrace.STEP).isAfter(now)) {
        live.record(times[known], gpus[known]);
        known++;
      }
      SlotForecast s = forecaster.forecast(training, times[i], NO_HOLIDAYS);
      SlotForecast r = forecaster.forecast(rolling, times[i], NO_HOLIDAYS);
      SlotForecast l = leveled.forecast(live, times[i], NO_HOLIDAYS, now);
      staticF1.add(gpus[i], s.wholeGpus(Quantile.P50), s.wholeGpus(Quantile.P90));
      rollingF1.add(gpus[i], r.wholeGpus(Quantile.P50), r.wholeGpus(Quantile.P90));
      levelF1.add(gpus[i], l.wholeGpus(Quantile.P50), l.wholeGpus(Quantile.P90));
      int yesterday = gpus[i - 144];
      naive.add(gpus[i], yesterday, yesterday);
      Metrics[] daily = byDay.computeIfAbsent(day, d -> new Metrics[] {
          new Metrics(d + " static"), new Metrics(d + " rolling"), new Metrics(d + " naive"),
          new Metrics(d + " level")});
      daily[0].add(gpus[i], s.wholeGpus(Quantile.P50), s.wholeGpus(Quantile.P90));
      daily[1].add(gpus[i], r.wholeGpus(Quantile.P50), r.wholeGpus(Quantile.P90));
      daily[2].add(gpus[i], yesterday, yesterday);
      daily[3].add(gpus[i], l.wholeGpus(Quantile.P50), l.wholeGpus(Quantile.P90));
    }

    System.out.printf(Locale.ROOT, "[F1] test slots %d (days 11-14, 10-min slots, %s)%n",
        staticF1.n, "GPUs at 5 req/s each");
    for (Metrics m : List.of(staticF1, rollingF1, levelF1, naive)) {
      System.out.println("[F1] " + m);
    }
    byDay.forEach((day, m) -> System.out.printf(Locale.ROOT,
        "[F1]   %s: %3d slots, mean actual %5.1f GPUs | MAPE static %5.1f%% rolling %5.1f%% "
            + "level %5.1f%% naive %5.1f%% | coverage p90 static %5.1f%% rolling %5.1f%% "
            + "level %5.1f%%%n", day, m[0].n,
        m[0].actualGpus / (double) m[0].n, 100 * m[0].mape(), 100 * m[1].mape(),
        100 * m[3].mape(), 100 * m[2].mape(), 100 * m[0].coverage(), 100 * m[1].coverage(),
        100 * m[3].coverage()));

    assertThat(staticF1.n).isEqualTo(576);
    // A forecaster that returned 0 would score 100%; one that returned the training maximum,
    // far above. The trace drops 30-40% below its training level on days 12-14, hence the bound.
    for (Metrics m : List.of(staticF1, rollingF1, levelF1, naive)) {
      assertThat(m.mape()).as(m.name + " MAPE").isBetween(0.01, 0.75);
    }
    // The forecast the service makes (level-corrected, 15 min ahead) beats the naive one on
    // its median and still covers most slots with its reservation quantile.
    assertThat(levelF1.mape()).isLessThan(naive.mape());
    assertThat(levelF1.coverage()).isGreaterThan(0.85);
    assertThat(levelF1.meanShort()).isLessThan(naive.meanShort() / 2);
    // The reservation quantile covers most slots and clearly more than the median does ...
    assertThat(staticF1.coverage()).isGreaterThan(0.85);
    assertThat(rollingF1.coverage()).isGreaterThan(0.80);
    assertThat(staticF1.coverage()).isGreaterThan(staticF1.coverageP50() + 0.10);
    // ... and leaves far fewer GPUs to over-issue (F3) than reserving yesterday's demand would.
    assertThat(staticF1.meanShort()).isLessThan(naive.meanShort() / 2);
    assertThat(rollingF1.meanShort()).isLessThan(naive.meanShort() / 2);
  }

  @Test
  void shouldFindTheTroughOfTheRealDayAtNight() {
    SlotHistory fleet = SlotHistory.empty("fleet", ZoneOffset.UTC, CONFIG);
    for (int i = 0; i < trace.size() && trace.offsets[i] < TRAIN_SECONDS; i++) {
      fleet.record(times[i], gpus[i]);
    }
    LocalDate after = CONFIG.grid(ZoneOffset.UTC).date(times[0]).plusDays(11);
    double[] profile = fleet.meanProfile(after, CONFIG.windowDays(), NO_HOLIDAYS);

    SlotMap map = new SlotClassifier(SlotClassifierConfig.DEFAULTS)
        .classify(CONFIG.grid(ZoneOffset.UTC), profile);

    StringBuilder hours = new StringBuilder("[F4] class by hour:");
    for (int h = 0; h < 24; h++) {
      hours.append(String.format(Locale.ROOT, " %02d=%s", h,
          map.classOf(h * 6).name().charAt(0) + map.classOf(h * 6).name().substring(1, 2)));
    }
    System.out.println(hours);
    map.trace().forEach(t -> System.out.println("[F4] " + t));
    List<SlotClass> atFour = new ArrayList<>();
    for (int s = 4 * 6 - 3; s <= 4 * 6 + 3; s++) {
      atFour.add(map.classOf(s));
    }
    assertThat(atFour).doesNotContain(SlotClass.PEAK, SlotClass.FLAT);
    assertThat(map.classes()).contains(SlotClass.PEAK);
  }

  /** MAPE of the median and coverage of the reservation quantile over the test slots. */
  private static final class Metrics {
    final String name;
    int n;
    double absPctError;
    int coveredP90;
    int coveredP50;
    long shortGpus;
    long spareGpus;
    long actualGpus;

    Metrics(String name) {
      this.name = name;
    }

    void add(int actual, int p50, int p90) {
      n++;
      absPctError += Math.abs(p50 - actual) / (double) actual;
      coveredP90 += actual <= p90 ? 1 : 0;
      coveredP50 += actual <= p50 ? 1 : 0;
      shortGpus += Math.max(0, actual - p90);
      spareGpus += Math.max(0, p90 - actual);
      actualGpus += actual;
    }

    double meanShort() {
      return shortGpus / (double) n;
    }

    double mape() {
      return absPctError / n;
    }

    double coverage() {
      return coveredP90 / (double) n;
    }

    double coverageP50() {
      return coveredP50 / (double) n;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT,
          "%-28s MAPE(p50) %5.1f%%  coverage(actual<=p90) %5.1f%%  (<=p50 %5.1f%%)  "
              + "mean short %.2f GPUs, mean spare %.2f GPUs per slot",
          name, 100 * mape(), 100 * coverage(), 100 * coverageP50(), shortGpus / (double) n,
          spareGpus / (double) n);
    }
  }
}
