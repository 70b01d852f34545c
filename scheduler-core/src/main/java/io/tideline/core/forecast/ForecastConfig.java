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
 * @param levelWindow how far back the level correction looks (F1 accuracy, issue #4): the
 *     complete slots of the last {@code levelWindow} before the forecast is made are compared
 *     with their own same-slot medians, and the forecast is scaled by the ratio of the sums;
 *     default 1 h (ForecastAccuracyReportTest: MAPE of p50 22.0% at 1 h; a prototype of the
 *     report over 1 / 2 / 3 / 6 h gave 24 / 26 / 26 / 31%, the shortest window tracking best);
 *     {@link Duration#ZERO} turns it off
 * @param maxLevelFactor bound of the level correction: the scale stays within
 *     {@code [1/maxLevelFactor, maxLevelFactor]}, so one odd hour cannot zero or explode a
 *     forecast; default 3.0
 * @param calibration the blend, calibration, cold start and level-shift settings of the
 *     {@link DemandForecaster} (issue #21); default {@link CalibrationConfig#DEFAULTS}
 */
public record ForecastConfig(
    Duration slotLength,
    int windowDays,
    int holidayWindowDays,
    int minHolidayDays,
    double holidayFallbackFactor,
    double sketchRelativeAccuracy,
    Duration levelWindow,
    double maxLevelFactor,
    CalibrationConfig calibration) {

  /** The documented defaults. */
  public static final ForecastConfig DEFAULTS = new ForecastConfig(Duration.ofMinutes(15), 14,
      365, 3, 1.0, 0.01, Duration.ofHours(1), 3.0, CalibrationConfig.DEFAULTS);

  /** A config with the default calibration. */
  public ForecastConfig(Duration slotLength, int windowDays, int holidayWindowDays,
      int minHolidayDays, double holidayFallbackFactor, double sketchRelativeAccuracy,
      Duration levelWindow, double maxLevelFactor) {
    this(slotLength, windowDays, holidayWindowDays, minHolidayDays, holidayFallbackFactor,
        sketchRelativeAccuracy, levelWindow, maxLevelFactor, CalibrationConfig.DEFAULTS);
  }

  /** A config with the default level correction. */
  public ForecastConfig(Duration slotLength, int windowDays, int holidayWindowDays,
      int minHolidayDays, double holidayFallbackFactor, double sketchRelativeAccuracy) {
    this(slotLength, windowDays, holidayWindowDays, minHolidayDays, holidayFallbackFactor,
        sketchRelativeAccuracy, Duration.ofHours(1), 3.0);
  }

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
    if (levelWindow == null || levelWindow.isNegative()) {
      throw new IllegalArgumentException("levelWindow must be zero or positive");
    }
    if (!(maxLevelFactor >= 1)) {
      throw new IllegalArgumentException("maxLevelFactor must be at least 1");
    }
    java.util.Objects.requireNonNull(calibration, "calibration");
  }

  /** This config with another slot length (e.g. 10 min to match a 10-minute trace). */
  public ForecastConfig withSlotLength(Duration length) {
    return new ForecastConfig(length, windowDays, holidayWindowDays, minHolidayDays,
        holidayFallbackFactor, sketchRelativeAccuracy, levelWindow, maxLevelFactor, calibration);
  }

  /** This config with another level window ({@link Duration#ZERO}: no level correction). */
  public ForecastConfig withLevelWindow(Duration window) {
    return new ForecastConfig(slotLength, windowDays, holidayWindowDays, minHolidayDays,
        holidayFallbackFactor, sketchRelativeAccuracy, window, maxLevelFactor, calibration);
  }

  /** This config with other {@link DemandForecaster} settings. */
  public ForecastConfig withCalibration(CalibrationConfig settings) {
    return new ForecastConfig(slotLength, windowDays, holidayWindowDays, minHolidayDays,
        holidayFallbackFactor, sketchRelativeAccuracy, levelWindow, maxLevelFactor, settings);
  }

  /** The slot grid of this config in {@code zone}. */
  public SlotGrid grid(ZoneId zone) {
    return new SlotGrid(slotLength, zone);
  }
}
