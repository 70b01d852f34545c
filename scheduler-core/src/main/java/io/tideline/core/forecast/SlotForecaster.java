package io.tideline.core.forecast;

import io.tideline.core.trace.TraceEntry;
import com.datadoghq.sketch.ddsketch.DDSketch;
import io.tideline.core.slots.SlotGrid;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The F1 rolling forecast: quantiles of a service's usage in one slot, from the same slot of past
 * days of the same kind. A regular slot uses the regular days of the last {@code windowDays}
 * days; a holiday slot uses past holidays only. Holidays never enter regular statistics.
 *
 * <p>Fallback (documented choice): when fewer than {@link ForecastConfig#minHolidayDays()}
 * holidays have data in the slot, a holiday slot is forecast from the regular days' statistics of
 * the same slot multiplied by {@link ForecastConfig#holidayFallbackFactor()} (default 1.0). A
 * weekend profile was not chosen because F1 flags holidays only, so the core has no notion of a
 * weekend; a calendar may list weekends as holidays where they behave like them.
 *
 * <p>Level correction: same-slot quantiles know the shape of a day but not today's level, and
 * demand drifts (the ServeGen trace drops 30–40% over its last days). The forecast is therefore
 * scaled by how today's recent slots compare with their own same-slot medians: the sum of the
 * mean usage of the complete slots in the last {@link ForecastConfig#levelWindow()} before
 * {@code asOf}, over the sum of those slots' medians (each from days of its own kind), bounded by
 * {@link ForecastConfig#maxLevelFactor()}. Without such slots (no data yet today) the factor is 1.
 */
public final class SlotForecaster {

  private static final String RULE_WINDOW = "F1 same-slot rolling window";
  private static final String RULE_HOLIDAY = "F1 holiday flag";
  private static final String RULE_LEVEL = "F1 level correction";

  private final ForecastConfig config;

  public SlotForecaster(ForecastConfig config) {
    this.config = config;
  }

  public ForecastConfig config() {
    return config;
  }

  /**
   * Forecasts {@code history}'s usage in the slot starting at {@code slotStart}.
   *
   * @param history the service's recorded usage
   * @param slotStart a slot boundary of the history's grid
   * @param calendar the holiday calendar; its zone must be the grid's zone
   */
  public SlotForecast forecast(SlotHistory history, Instant slotStart, HolidayCalendar calendar) {
    return forecast(history, slotStart, calendar, slotStart);
  }

  /**
   * Forecasts {@code history}'s usage in the slot starting at {@code slotStart}, as known at
   * {@code asOf} (the level correction uses only slots complete by then).
   *
   * @param asOf when the forecast is made (event time), at or before {@code slotStart}
   */
  public SlotForecast forecast(SlotHistory history, Instant slotStart, HolidayCalendar calendar,
      Instant asOf) {
    return forecast(history, slotStart, calendar, asOf, null);
  }

  /**
   * Forecasts as {@link #forecast(SlotHistory, Instant, HolidayCalendar, Instant)} with the
   * memory cut at {@code since}: only same-slot samples of slots starting at or after it count
   * (the {@link DemandForecaster} passes the start of a detected level shift).
   *
   * @param since first slot start the statistics may use, or {@code null} for no cut
   */
  public SlotForecast forecast(SlotHistory history, Instant slotStart, HolidayCalendar calendar,
      Instant asOf, Instant since) {
    // 1. Check the inputs agree on the slot grid and zone.
    SlotGrid grid = history.grid();
    if (!grid.zone().equals(calendar.zone())) {
      throw new IllegalArgumentException(
          "calendar zone " + calendar.zone() + " differs from history zone " + grid.zone());
    }
    if (!grid.isSlotStart(slotStart)) {
      throw new IllegalArgumentException("not a slot boundary: " + slotStart);
    }
    LocalDate day = grid.date(slotStart);
    int slot = grid.slotIndex(slotStart);
    DayKind kind = calendar.kindOf(day);
    String subject = history.serviceId() + " slot " + slot + " of " + day;
    List<TraceEntry> trace = new ArrayList<>();
    LocalDate regularFrom = day.minusDays(config.windowDays());

    // 2. A holiday slot: use holiday history if there is enough of it.
    if (kind == DayKind.HOLIDAY) {
      LocalDate holidayFrom = day.minusDays(config.holidayWindowDays());
      SlotHistory.Merged holidays = history.merge(holidayFrom, day, slot,
          d -> calendar.kindOf(d) == DayKind.HOLIDAY && after(grid, d, slot, since));
      if (holidays.daysUsed() > 0 && holidays.daysUsed() >= config.minHolidayDays()) {
        trace.add(new TraceEntry(subject, RULE_HOLIDAY, "holiday history", String.format(
            Locale.ROOT, "%d holidays with data since %s >= minimum %d", holidays.daysUsed(),
            holidayFrom, config.minHolidayDays())));
        return build(history, slotStart, grid, kind, ForecastBasis.HOLIDAY_HISTORY, holidays,
            level(history, calendar, asOf, since, subject, trace), trace);
      }
      // 3. Too little holiday history: scaled regular-day statistics (documented fallback).
      SlotHistory.Merged regular = history.merge(regularFrom, day, slot,
          d -> calendar.kindOf(d) == DayKind.REGULAR && after(grid, d, slot, since));
      trace.add(new TraceEntry(subject, RULE_HOLIDAY, "fallback to scaled regular days",
          String.format(Locale.ROOT,
              "%d holidays with data since %s < minimum %d; regular days %s..%s x %.2f",
              holidays.daysUsed(), holidayFrom, config.minHolidayDays(), regularFrom,
              day.minusDays(1), config.holidayFallbackFactor())));
      return build(history, slotStart, grid, kind, ForecastBasis.REGULAR_SCALED_FOR_HOLIDAY,
          regular, config.holidayFallbackFactor()
              * level(history, calendar, asOf, since, subject, trace), trace);
    }

    // 4. A regular slot: regular days of the rolling window only.
    SlotHistory.Merged regular = history.merge(regularFrom, day, slot,
        d -> calendar.kindOf(d) == DayKind.REGULAR && after(grid, d, slot, since));
    trace.add(new TraceEntry(subject, RULE_WINDOW, "regular history", String.format(Locale.ROOT,
        "%d regular days with data in %s..%s (window %d days, holidays excluded%s)",
        regular.daysUsed(), regularFrom, day.minusDays(1), config.windowDays(),
        since == null ? "" : ", since the level shift at " + since)));
    return build(history, slotStart, grid, kind, ForecastBasis.REGULAR_HISTORY, regular,
        level(history, calendar, asOf, since, subject, trace), trace);
  }

  /**
   * The median of the same slot over the earlier days of its kind (the expectation the level
   * factor compares a slot with), cut at {@code since}; empty without such history.
   */
  java.util.OptionalDouble sameSlotMedian(SlotHistory history, HolidayCalendar calendar,
      Instant slotStart, Instant since) {
    SlotGrid grid = history.grid();
    LocalDate day = grid.date(slotStart);
    int slot = grid.slotIndex(slotStart);
    DayKind kind = calendar.kindOf(day);
    LocalDate from = day.minusDays(kind == DayKind.HOLIDAY
        ? config.holidayWindowDays() : config.windowDays());
    DDSketch past = history.merge(from, day, slot,
        d -> calendar.kindOf(d) == kind && after(grid, d, slot, since)).sketch();
    return past.isEmpty() ? java.util.OptionalDouble.empty()
        : java.util.OptionalDouble.of(past.getValueAtQuantile(Quantile.P50.level()));
  }

  private static boolean after(SlotGrid grid, LocalDate day, int slot, Instant since) {
    return since == null || !grid.slotStart(day, slot).isBefore(since);
  }

  /**
   * The level factor (see the class comment): (1) take the complete slots in
   * {@code [asOf - levelWindow, asOf)}; (2) for each with data on its own day, add its mean usage
   * to the actual sum and the median of the same slot over the earlier days of its kind to the
   * expected sum; (3) the factor is actual / expected, bounded; 1 when nothing compares.
   */
  private double level(SlotHistory history, HolidayCalendar calendar, Instant asOf,
      Instant since, String subject, List<TraceEntry> trace) {
    if (config.levelWindow().isZero()) {
      return 1.0;
    }
    SlotGrid grid = history.grid();
    Instant from = asOf.minus(config.levelWindow());
    Instant t = grid.slotStartOf(from);
    if (t.isBefore(from)) {
      t = t.plus(grid.slotLength());
    }
    double actual = 0;
    double expected = 0;
    int slots = 0;
    for (; !t.plus(grid.slotLength()).isAfter(asOf); t = t.plus(grid.slotLength())) {
      LocalDate day = grid.date(t);
      int slot = grid.slotIndex(t);
      DDSketch today = history.merge(day, day.plusDays(1), slot, d -> true).sketch();
      if (today.isEmpty()) {
        continue;
      }
      java.util.OptionalDouble sameSlot = sameSlotMedian(history, calendar, t, since);
      if (sameSlot.isEmpty()) {
        continue;
      }
      double median = sameSlot.getAsDouble();
      if (median <= 0) {
        continue;
      }
      actual += today.getSum() / today.getCount();
      expected += median;
      slots++;
    }
    if (slots == 0) {
      return 1.0;
    }
    double raw = actual / expected;
    double factor = Math.max(1 / config.maxLevelFactor(), Math.min(config.maxLevelFactor(), raw));
    trace.add(new TraceEntry(subject, RULE_LEVEL, String.format(Locale.ROOT, "x %.2f", factor),
        String.format(Locale.ROOT, "%d slots before %s: mean usage %.1f vs same-slot medians "
            + "%.1f GPUs (ratio %.2f, bound %.1f)", slots, asOf, actual, expected, raw,
            config.maxLevelFactor())));
    return factor;
  }

  private SlotForecast build(SlotHistory history, Instant slotStart, SlotGrid grid, DayKind kind,
      ForecastBasis basis, SlotHistory.Merged merged, double factor, List<TraceEntry> trace) {
    DDSketch sketch = merged.sketch();
    Instant slotEnd = slotStart.plus(grid.slotLength());
    String subject = history.serviceId() + " slot " + grid.slotIndex(slotStart) + " of "
        + grid.date(slotStart);
    if (sketch.isEmpty()) {
      trace.add(new TraceEntry(subject, RULE_WINDOW, "no history", "no sample for this slot"));
      return new SlotForecast(history.serviceId(), slotStart, slotEnd, kind,
          ForecastBasis.NO_HISTORY, 0, 0, 0, 0, 0, 0, history.relativeAccuracy(), trace);
    }
    double[] q = sketch.getValuesAtQuantiles(new double[] {
        Quantile.P50.level(), Quantile.P90.level(), Quantile.P95.level(), Quantile.P99.level()});
    long samples = Math.round(sketch.getCount());
    trace.add(new TraceEntry(subject, RULE_WINDOW, "quantiles", String.format(Locale.ROOT,
        "p50 %.2f p90 %.2f p95 %.2f p99 %.2f GPUs from %d samples%s", q[0] * factor,
        q[1] * factor, q[2] * factor, q[3] * factor, samples,
        factor == 1.0 ? "" : String.format(Locale.ROOT, " (x %.2f)", factor))));
    return new SlotForecast(history.serviceId(), slotStart, slotEnd, kind, basis,
        merged.daysUsed(), samples, q[0] * factor, q[1] * factor, q[2] * factor, q[3] * factor,
        history.relativeAccuracy(), trace);
  }
}
