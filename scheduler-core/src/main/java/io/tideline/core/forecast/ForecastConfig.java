package io.tideline.core.forecast;

import io.tideline.core.slots.SlotGrid;
import java.time.Duration;
import java.time.ZoneId;

/**
 * Settings of the F1 slot statistics and forecast.
 *
 * @param slotLength length of a time slot of the day (F1); default 15 min
 * @param windowDays rolling window of regular days a slot is forecast from (F1 "past two
 *     weeks"); default 14
 * @param holidayWindowDays how far back holiday history is kept and used (F1 holiday flag);
 *     default 365, because a 14-day window rarely holds enough holidays
 * @param minHolidayDays holidays with data in the slot needed before a holiday slot is forecast
 *     from holiday history alone (F1); default 3. With fewer, the forecast falls back to the
 *     regular-day statistics of the same slot scaled by {@code holidayFallbackFactor}
 * @param holidayFallbackFactor scale applied to regular-day quantiles for a holiday slot without
 *     enough holiday history (F1); default 1.0: reserve as on a regular day, the safe side for an
 *     online service that must never wait. Lower it where holidays are known to be quieter
 * @param sketchRelativeAccuracy relative accuracy of the DDSketch quantiles (F1 "no heavy model",
 *     bounded memory); default 0.01, i.e. every quantile within 1% of the exact one
 */
public record ForecastConfig(
    Duration slotLength,
    int windowDays,
    int holidayWindowDays,
    int minHolidayDays,
    double holidayFallbackFactor,
    double sketchRelativeAccuracy) {

  /** The documented defaults. */
  public static final ForecastConfig DEFAULTS =
      new ForecastConfig(Duration.ofMinutes(15), 14, 365, 3, 1.0, 0.01);

  public ForecastConfig {
    if (windowDays <= 0 || holidayWindowDays <= 0) {
      throw new IllegalArgumentException("windows must be positive");
    }
    if (minHolidayDays < 0) {
      throw new IllegalArgumentException("minHolidayDays must not be negative");
    }
    if (!(holidayFallbackFactor > 0)) {
      throw new IllegalArgumentException("holidayFallbackFactor must be positive");
    }
    if (!(sketchRelativeAccuracy > 0 && sketchRelativeAccuracy < 1)) {
      throw new IllegalArgumentException("sketchRelativeAccuracy must be in (0, 1)");
    }
  }

  /** This config with another slot length (e.g. 10 min to match a 10-minute trace). */
  public ForecastConfig withSlotLength(Duration length) {
    return new ForecastConfig(length, windowDays, holidayWindowDays, minHolidayDays,
        holidayFallbackFactor, sketchRelativeAccuracy);
  }

  /** The slot grid of this config in {@code zone}. */
  public SlotGrid grid(ZoneId zone) {
    return new SlotGrid(slotLength, zone);
  }
}
