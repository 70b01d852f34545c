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
 */
public final class SlotForecaster {

  private static final String RULE_WINDOW = "F1 same-slot rolling window";
  private static final String RULE_HOLIDAY = "F1 holiday flag";

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
          d -> calendar.kindOf(d) == DayKind.HOLIDAY);
      if (holidays.daysUsed() > 0 && holidays.daysUsed() >= config.minHolidayDays()) {
        trace.add(new TraceEntry(subject, RULE_HOLIDAY, "holiday history", String.format(
            Locale.ROOT, "%d holidays with data since %s >= minimum %d", holidays.daysUsed(),
            holidayFrom, config.minHolidayDays())));
        return build(history, slotStart, grid, kind, ForecastBasis.HOLIDAY_HISTORY, holidays, 1.0,
            trace);
      }
      // 3. Too little holiday history: scaled regular-day statistics (documented fallback).
      SlotHistory.Merged regular = history.merge(regularFrom, day, slot,
          d -> calendar.kindOf(d) == DayKind.REGULAR);
      trace.add(new TraceEntry(subject, RULE_HOLIDAY, "fallback to scaled regular days",
          String.format(Locale.ROOT,
              "%d holidays with data since %s < minimum %d; regular days %s..%s x %.2f",
              holidays.daysUsed(), holidayFrom, config.minHolidayDays(), regularFrom,
              day.minusDays(1), config.holidayFallbackFactor())));
      return build(history, slotStart, grid, kind, ForecastBasis.REGULAR_SCALED_FOR_HOLIDAY,
          regular, config.holidayFallbackFactor(), trace);
    }

    // 4. A regular slot: regular days of the rolling window only.
    SlotHistory.Merged regular = history.merge(regularFrom, day, slot,
        d -> calendar.kindOf(d) == DayKind.REGULAR);
    trace.add(new TraceEntry(subject, RULE_WINDOW, "regular history", String.format(Locale.ROOT,
        "%d regular days with data in %s..%s (window %d days, holidays excluded)",
        regular.daysUsed(), regularFrom, day.minusDays(1), config.windowDays())));
    return build(history, slotStart, grid, kind, ForecastBasis.REGULAR_HISTORY, regular, 1.0,
        trace);
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
