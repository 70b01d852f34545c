package io.tideline.core.forecast;

import io.tideline.core.slots.SlotGrid;
import io.tideline.core.trace.TraceEntry;
import com.datadoghq.sketch.ddsketch.DDSketch;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * The forecast a reservation is sized from (F1, F2; issue #21): a service's usage in one slot, as
 * known some time before it. Still "no heavy time-series model" (F1): five plain ingredients, each
 * a few lines, each with its reason.
 *
 * <ol>
 *   <li><b>Same-slot statistics, level-corrected</b> ({@link SlotForecaster}): the median of the
 *       same slot over the regular days of the last two weeks (holidays from holidays), scaled by
 *       how the last hour compares with its own same-slot medians. It knows the shape of a day.
 *   <li><b>Blend with the last known level</b>: the median is
 *       {@code w · same-slot + (1 − w) · mean of last(j) · m(target) / m(j)}, over the complete
 *       slots {@code j} with data in the {@link CalibrationConfig#persistenceWindow()} ending at
 *       the latest one with data: each slot's mean usage carried along the day's shape by the
 *       ratio of the two slots' same-slot medians {@code m} (slots without a median count, uncarried,
 *       only when no slot of the window has one), and
 *       {@code w} = {@link CalibrationConfig#seasonalWeight()}. The level factor compares the last
 *       hour with its medians; the last slot is the freshest level there is. Persistence (the
 *       last slot as is) is hard to beat 15 minutes ahead on a noisy trace and lags on a steep
 *       tide; carried along the shape and averaged with the hour's level it beats both on every
 *       trace of docs/forecast-accuracy.md. It also keeps the median right when the same-slot
 *       history is wrong (after a change of regime). Averaging a few slots (40 min) rather than
 *       taking the last alone keeps one slot's noise out of the median (ADR 0028).
 *   <li><b>Quantiles calibrated on recent errors</b>: the reservation quantile is
 *       {@code median × r}, where {@code r} is the (q + margin)-quantile of actual / forecast median
 *       over the forecasts settled in the last {@link CalibrationConfig#calibrationWindow()}
 *       (conformal-style: the spread actually observed at this horizon, not assumed). Before this,
 *       the p90 was the 14-day same-slot p90 times the level factor; that spread already holds the
 *       day-to-day level swings the level factor corrects, so they were counted twice and the
 *       reservation over-reserved by 46% of demand on the shared trace. Until
 *       {@link CalibrationConfig#minResiduals()} forecasts have settled, the same-slot spread
 *       (p90 / p50 of the slot) scales the blended median instead.
 *   <li><b>Cold start</b>: a service with no same-slot history is forecast from its first complete
 *       slot on, as its last known level with a margin {@code max(min, k · spread)}
 *       ({@link CalibrationConfig#coldStartMinMargin()}, {@link
 *       CalibrationConfig#coldStartSpreadFactor()}), where spread
 *       is p90 / p50 − 1 of its samples over the last level window: the margin widens with the
 *       uncertainty the service shows, and gives way to the calibrated one once forecasts have
 *       settled. Such a forecast (and its reservation) has basis {@link ForecastBasis#COLD_START}.
 *   <li><b>Shorter memory after a level shift</b>: when settled slots stay beyond
 *       {@link CalibrationConfig#shiftRatio()} (above or below) of their same-slot medians for
 *       {@link CalibrationConfig#shiftConfirm()}, a level shift is declared at the start of that
 *       run, and the same-slot statistics use only slots from it on (two weeks of the old regime
 *       would otherwise linger in every median). Until the new regime has a same-slot history the
 *       forecast is the cold-start one, with basis {@link ForecastBasis#LEVEL_SHIFT}.
 * </ol>
 *
 * <p>Missing data is never zero demand: slots without samples (a telemetry gap, STALE samples
 * past their carry) are simply absent from the history, so the level factor, the last known level
 * and the settlement of forecasts skip them — the last slot with data stands.
 *
 * <p>Pure and deterministic: the history and the {@link Calibration} are values, {@code asOf} is
 * event time.
 */
public final class DemandForecaster {

  private static final String RULE_BLEND = "F1 blend with the last level";
  private static final String RULE_CALIBRATION = "F1 calibrated quantile";
  private static final String RULE_COLD = "F1 cold start";
  private static final String RULE_SHIFT = "F1 level shift";
  /** Standard normal quantiles: how a cold-start margin at p90 scales to p95 and p99. */
  private static final double Z90 = 1.2816;
  private static final double Z95 = 1.6449;
  private static final double Z99 = 2.3263;

  private final ForecastConfig config;
  private final CalibrationConfig settings;
  private final SlotForecaster slots;

  public DemandForecaster(ForecastConfig config) {
    this.config = config;
    this.settings = config.calibration();
    this.slots = new SlotForecaster(config);
  }

  public ForecastConfig config() {
    return config;
  }

  /**
   * Forecasts {@code history}'s usage in the slot starting at {@code slotStart}, as known at
   * {@code asOf} (only slots complete by then count), calibrated on {@code calibration}.
   *
   * @param slotStart a slot boundary of the history's grid, at or after {@code asOf}
   */
  public SlotForecast forecast(SlotHistory history, Calibration calibration, Instant slotStart,
      HolidayCalendar calendar, Instant asOf) {
    SlotGrid grid = history.grid();
    String subject = history.serviceId() + " slot " + grid.slotIndex(slotStart) + " of "
        + grid.date(slotStart);
    // 1. The same-slot forecast (memory cut at a detected shift) and the last known level.
    SlotForecast seasonal = slots.forecast(history, slotStart, calendar, asOf,
        calibration.shiftAt());
    List<TraceEntry> trace = new ArrayList<>(seasonal.trace());
    if (calibration.shiftAt() != null) {
      trace.add(new TraceEntry(subject, RULE_SHIFT, "memory from " + calibration.shiftAt(),
          "a level shift was detected then; older same-slot history is not used"));
    }
    Last last = lastLevel(history, asOf);
    double[] ratios = ratios(calibration, grid, slotStart);
    boolean calibrated = ratios.length >= settings.minResiduals();

    // 2. With same-slot history: blend the median, calibrate (or rescale) the quantiles.
    if (seasonal.basis() != ForecastBasis.NO_HISTORY) {
      double p50 = seasonal.p50();
      if (last != null) {
        // The last level carried along the day's shape: x median(target) / median(its slot),
        // averaged over the slots with data in the persistence window ending at the last one.
        OptionalDouble to = slots.sameSlotMedian(history, calendar, slotStart,
            calibration.shiftAt());
        // A slot without a same-slot median cannot be carried: it counts only if none can.
        double carried = 0;
        int n = 0;
        double raw = 0;
        int rawN = 0;
        for (Instant t = last.slotStart(); t.isAfter(last.slotStart()
            .minus(settings.persistenceWindow())); t = t.minus(grid.slotLength())) {
          OptionalDouble mean = history.slotMean(t);
          if (mean.isEmpty()) {
            continue;
          }
          OptionalDouble from = slots.sameSlotMedian(history, calendar, t, calibration.shiftAt());
          if (from.isPresent() && to.isPresent() && from.getAsDouble() > 0) {
            carried += mean.getAsDouble() * to.getAsDouble() / from.getAsDouble();
            n++;
          } else {
            raw += mean.getAsDouble();
            rawN++;
          }
        }
        if (n > 0) {
          carried /= n;
        } else {
          carried = raw / rawN;
          n = rawN;
        }
        p50 = settings.seasonalWeight() * seasonal.p50()
            + (1 - settings.seasonalWeight()) * carried;
        trace.add(new TraceEntry(subject, RULE_BLEND, String.format(Locale.ROOT, "p50 %.2f",
            p50), String.format(Locale.ROOT, "%.2f x same-slot %.2f + %.2f x last level %.2f "
            + "(slot %s; %d slot(s) of the last %s) carried along the day's shape to %.2f",
            settings.seasonalWeight(), seasonal.p50(), 1 - settings.seasonalWeight(),
            last.mean(), last.slotStart(), n, settings.persistenceWindow(), carried)));
      }
      double[] q;
      if (calibrated) {
        q = calibratedQuantiles(p50, ratios, subject, trace);
      } else {
        double scale = seasonal.p50() > 0 ? p50 / seasonal.p50() : 1;
        q = new double[] {seasonal.p90() * scale, seasonal.p95() * scale, seasonal.p99() * scale};
        trace.add(new TraceEntry(subject, RULE_CALIBRATION, "same-slot spread",
            String.format(Locale.ROOT, "%d of %d settled forecasts: quantiles scale with the "
                + "median (x %.2f)", ratios.length, settings.minResiduals(), scale)));
      }
      return result(seasonal, seasonal.basis(), seasonal.daysUsed(), seasonal.samples(), p50, q,
          trace);
    }

    // 3. No same-slot history but recent usage: cold start (or the level since a shift).
    if (last != null) {
      ForecastBasis basis = calibration.shiftAt() != null
          && hasDataBefore(history, calibration.shiftAt())
          ? ForecastBasis.LEVEL_SHIFT : ForecastBasis.COLD_START;
      double p50 = last.mean();
      double[] q;
      DDSketch recent = history.mergeSlots(asOf.minus(recentWindow(grid)), asOf);
      if (calibrated) {
        q = calibratedQuantiles(p50, ratios, subject, trace);
      } else {
        double median = recent.isEmpty() ? 0 : recent.getValueAtQuantile(Quantile.P50.level());
        double spread = median > 0
            ? recent.getValueAtQuantile(Quantile.P90.level()) / median - 1 : 0;
        double margin = Math.max(settings.coldStartMinMargin(),
            settings.coldStartSpreadFactor() * spread);
        q = new double[] {p50 * (1 + margin), p50 * (1 + margin * Z95 / Z90),
            p50 * (1 + margin * Z99 / Z90)};
        trace.add(new TraceEntry(subject, RULE_COLD, String.format(Locale.ROOT,
            "margin %.0f%%", 100 * margin), String.format(Locale.ROOT,
            "last level %.2f GPUs (slot %s); recent spread %.0f%% x %.1f, at least %.0f%%",
            p50, last.slotStart(), 100 * spread, settings.coldStartSpreadFactor(),
            100 * settings.coldStartMinMargin())));
      }
      return result(seasonal, basis, 0, Math.round(recent.getCount()), p50, q, trace);
    }
    return seasonal;
  }

  /**
   * Remembers a forecast made, to compare it with the slot's actual usage once it completes
   * ({@link #settle}). A forecast without a basis (no data at all) is not remembered.
   */
  public Calibration remember(Calibration calibration, SlotForecast forecast) {
    if (forecast.basis() == ForecastBasis.NO_HISTORY) {
      return calibration;
    }
    List<Calibration.Pending> pending = new ArrayList<>();
    for (Calibration.Pending p : calibration.pending()) {
      if (!p.slotStart().equals(forecast.slotStart())) {
        pending.add(p);
      }
    }
    pending.add(new Calibration.Pending(forecast.slotStart(), forecast.slotEnd(), forecast.p50(),
        forecast.p90()));
    pending.sort(java.util.Comparator.comparing(Calibration.Pending::slotStart));
    return new Calibration(pending, calibration.settled(), calibration.shiftAt(),
        calibration.runStart(), calibration.runSide());
  }

  /**
   * Settles every remembered forecast whose slot ended by {@code completeBefore} (every sample of
   * it is recorded): (1) a slot with data adds (forecast, actual) to the settled forecasts; a slot
   * without data is dropped (missing, not zero); (2) level-shift detection looks at the slot's
   * actual against its same-slot median; (3) settled forecasts older than the calibration window
   * and a shift older than the same-slot window are forgotten.
   */
  public Calibration settle(Calibration calibration, SlotHistory history,
      HolidayCalendar calendar, Instant completeBefore) {
    List<Calibration.Pending> pending = new ArrayList<>();
    List<Calibration.Settled> settled = new ArrayList<>(calibration.settled());
    Instant shiftAt = calibration.shiftAt();
    Instant runStart = calibration.runStart();
    int runSide = calibration.runSide();
    for (Calibration.Pending p : calibration.pending()) {
      if (p.slotEnd().isAfter(completeBefore)) {
        pending.add(p);
        continue;
      }
      OptionalDouble actual = history.slotMean(p.slotStart());
      if (actual.isEmpty()) {
        continue;
      }
      if (p.p50() > 0) {
        settled.add(new Calibration.Settled(p.slotStart(), p.p50(), p.p90(), actual.getAsDouble()));
      }
      if (settings.shiftConfirm().isZero()) {
        continue;
      }
      OptionalDouble median = slots.sameSlotMedian(history, calendar, p.slotStart(), shiftAt);
      int side = 0;
      if (median.isPresent() && median.getAsDouble() > 0) {
        double rho = actual.getAsDouble() / median.getAsDouble();
        side = rho > settings.shiftRatio() ? 1 : rho < 1 / settings.shiftRatio() ? -1 : 0;
      }
      if (side == 0) {
        runStart = null;
        runSide = 0;
      } else if (side != runSide) {
        runStart = p.slotStart();
        runSide = side;
      } else if (!Duration.between(runStart, p.slotEnd()).minus(settings.shiftConfirm())
          .isNegative()) {
        shiftAt = runStart;
        runStart = null;
        runSide = 0;
      }
    }
    Instant keepFrom = completeBefore.minus(settings.calibrationWindow());
    settled.removeIf(s -> s.slotStart().isBefore(keepFrom));
    if (shiftAt != null
        && shiftAt.isBefore(completeBefore.minus(Duration.ofDays(config.windowDays())))) {
      shiftAt = null;
    }
    return new Calibration(pending, settled, shiftAt, runStart, runSide);
  }

  /** The latest complete slot with data before {@code asOf}, within the lookback; or null. */
  private Last lastLevel(SlotHistory history, Instant asOf) {
    SlotGrid grid = history.grid();
    Instant t = grid.slotStartOf(asOf);
    if (t.plus(grid.slotLength()).isAfter(asOf)) {
      t = t.minus(grid.slotLength());
    }
    Instant floor = asOf.minus(settings.persistenceLookback());
    for (; !t.isBefore(floor); t = t.minus(grid.slotLength())) {
      OptionalDouble mean = history.slotMean(t);
      if (mean.isPresent()) {
        return new Last(t, mean.getAsDouble());
      }
    }
    return null;
  }

  private Duration recentWindow(SlotGrid grid) {
    return config.levelWindow().compareTo(grid.slotLength()) > 0
        ? config.levelWindow() : grid.slotLength();
  }

  private static boolean hasDataBefore(SlotHistory history, Instant at) {
    return !history.days().isEmpty()
        && history.grid().slotStart(history.days().first(), 0).isBefore(at);
  }

  /**
   * Actual / median of the settled forecasts, sorted; with a {@link
   * CalibrationConfig#calibrationBand()}, only those whose slot's time of day is within the band
   * of {@code slotStart}'s (all of them while fewer than {@code minResiduals} are).
   */
  private double[] ratios(Calibration calibration, SlotGrid grid, Instant slotStart) {
    List<Calibration.Settled> all = calibration.settled();
    List<Calibration.Settled> use = all;
    if (!settings.calibrationBand().isZero()) {
      long day = Duration.ofDays(1).toSeconds();
      long slot = grid.slotLength().toSeconds();
      long target = grid.slotIndex(slotStart) * slot;
      long band = settings.calibrationBand().toSeconds();
      use = new ArrayList<>();
      for (Calibration.Settled x : all) {
        long d = Math.abs(grid.slotIndex(x.slotStart()) * slot - target);
        if (Math.min(d, day - d) <= band) {
          use.add(x);
        }
      }
      if (use.size() < settings.minResiduals()) {
        use = all;
      }
    }
    double[] r = new double[use.size()];
    for (int i = 0; i < r.length; i++) {
      r[i] = use.get(i).ratio();
    }
    java.util.Arrays.sort(r);
    return r;
  }

  private double[] calibratedQuantiles(double p50, double[] ratios, String subject,
      List<TraceEntry> trace) {
    double r90 = quantile(ratios, Quantile.P90.level() + settings.coverageMargin());
    double r95 = quantile(ratios, Quantile.P95.level() + settings.coverageMargin());
    double r99 = quantile(ratios, Quantile.P99.level() + settings.coverageMargin());
    trace.add(new TraceEntry(subject, RULE_CALIBRATION, String.format(Locale.ROOT,
        "p90 = p50 x %.2f", r90), String.format(Locale.ROOT, "%d settled forecasts: actual / "
            + "median at the %.2f, %.2f, %.2f quantiles = %.2f, %.2f, %.2f", ratios.length,
        Math.min(1, Quantile.P90.level() + settings.coverageMargin()),
        Math.min(1, Quantile.P95.level() + settings.coverageMargin()),
        Math.min(1, Quantile.P99.level() + settings.coverageMargin()), r90, r95, r99)));
    return new double[] {p50 * r90, p50 * r95, p50 * r99};
  }

  /** Linear interpolation between order statistics (type 7); level capped at 1 (the maximum). */
  static double quantile(double[] sorted, double level) {
    double x = Math.min(1, Math.max(0, level)) * (sorted.length - 1);
    int lo = (int) Math.floor(x);
    int hi = Math.min(lo + 1, sorted.length - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (x - lo);
  }

  private static SlotForecast result(SlotForecast seasonal, ForecastBasis basis, int daysUsed,
      long samples, double p50, double[] q, List<TraceEntry> trace) {
    double p90 = Math.max(p50, q[0]);
    double p95 = Math.max(p90, q[1]);
    double p99 = Math.max(p95, q[2]);
    return new SlotForecast(seasonal.serviceId(), seasonal.slotStart(), seasonal.slotEnd(),
        seasonal.dayKind(), basis, daysUsed, samples, p50, p90, p95, p99,
        seasonal.relativeAccuracy(), trace);
  }

  /** The last known level: the mean of the latest complete slot with data. */
  private record Last(Instant slotStart, double mean) {}
}
