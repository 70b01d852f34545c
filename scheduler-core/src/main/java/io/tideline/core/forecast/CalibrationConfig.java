package io.tideline.core.forecast;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the {@link DemandForecaster} (issue #21): how the median blends the same-slot
 * statistics with the last known level, how the reservation quantile is calibrated on recent
 * forecast errors, how a new service is forecast before it has a history, and when a level shift
 * shortens the forecaster's memory. Each ingredient is explained on {@link DemandForecaster}.
 *
 * @param seasonalWeight weight of the same-slot forecast (same-slot median × level factor) in the
 *     median; the rest goes to the last known level (persistence). Default 0.5: on the shared
 *     ServeGen trace either alone is worse than the blend (docs/forecast-accuracy.md), and the
 *     blend halves whichever one is off after a change of regime
 * @param calibrationWindow how far back settled forecasts are kept to calibrate the quantiles
 *     (F1 "past two weeks" shortened: errors must reflect the current regime); default 7 days
 * @param coverageMargin added to a quantile's level before it is read off the distribution of
 *     recent errors: the allowance for drift between the calibration window and the next slot
 *     (a finite-sample conformal correction alone would add under 0.002 for 7 days of slots).
 *     Default 0.02: with the 40-minute persistence window, the smallest round margin that keeps
 *     coverage at or above 90% at both horizons on the shared trace; the table in
 *     docs/forecast-accuracy.md shows coverage and over-reservation for other values (ADR 0028)
 * @param minResiduals settled forecasts needed before the calibrated quantile is used; with
 *     fewer, a service with same-slot history takes the same-slot spread and a new one the cold
 *     start margin; default 24 (six hours of 15-minute slots)
 * @param coldStartMinMargin smallest margin of a cold-start forecast above the last known level:
 *     p90 = level × (1 + margin); default 0.2
 * @param coldStartSpreadFactor how much the recent spread of usage (p90 over p50 of the samples of
 *     the last level window, minus 1) widens the cold-start margin; default 1.0: a service whose
 *     recent samples spread by 35% reserves 35% above its level (20% at least)
 * @param persistenceLookback how far back the last known level is looked for: a gap in telemetry
 *     never makes it 0, the last slot with data stands until data resumes; default 24 h
 * @param shiftRatio ratio of actual usage to its same-slot median beyond which (either way) a
 *     settled slot counts towards a level shift; default 2.0 (a client that halves or doubles)
 * @param persistenceWindow how many recent slots the last known level averages: the slots with
 *     data in this window ending at the latest one, each carried along the day's shape; default
 *     40 min (ADR 0028): one slot's mean carries the slot's own noise into the median, four
 *     10-minute slots average it out (shared trace, 15 min ahead: MAPE 21.4% → 21.1%, and
 *     coverage 90% with margin 0.02 instead of 0.03, over-reservation 38.0% → 36.7%); at 1 h
 *     ahead it costs MAPE 26.9% → 27.9% (persistence 28.6%). A window shorter than a slot is the
 *     last slot alone
 * @param calibrationBand with a positive band, the quantiles are calibrated only on the settled
 *     forecasts whose slot's time of day is within the band of the target's (at least
 *     {@code minResiduals} of them, else all); default {@link Duration#ZERO}: all. Tried at
 *     1.5, 3 and 6 h on the shared trace and not better than all (ADR 0028)
 * @param shiftConfirm how long consecutive settled slots must stay beyond {@code shiftRatio} on
 *     the same side before a level shift is declared; default 3 h. {@link Duration#ZERO} turns
 *     shift detection off
 */
public record CalibrationConfig(
    double seasonalWeight,
    Duration calibrationWindow,
    double coverageMargin,
    int minResiduals,
    double coldStartMinMargin,
    double coldStartSpreadFactor,
    Duration persistenceLookback,
    Duration persistenceWindow,
    Duration calibrationBand,
    double shiftRatio,
    Duration shiftConfirm) {

  /** The documented defaults. */
  public static final CalibrationConfig DEFAULTS = new CalibrationConfig(0.5, Duration.ofDays(7),
      0.02, 24, 0.2, 1.0, Duration.ofHours(24), Duration.ofMinutes(40), Duration.ZERO, 2.0,
      Duration.ofHours(3));

  public CalibrationConfig {
    Objects.requireNonNull(calibrationWindow, "calibrationWindow");
    Objects.requireNonNull(persistenceLookback, "persistenceLookback");
    Objects.requireNonNull(shiftConfirm, "shiftConfirm");
    Objects.requireNonNull(persistenceWindow, "persistenceWindow");
    Objects.requireNonNull(calibrationBand, "calibrationBand");
    if (persistenceWindow.isNegative() || persistenceWindow.isZero()) {
      throw new IllegalArgumentException("persistenceWindow must be positive");
    }
    if (calibrationBand.isNegative()) {
      throw new IllegalArgumentException("calibrationBand must not be negative");
    }
    if (!(seasonalWeight >= 0 && seasonalWeight <= 1)) {
      throw new IllegalArgumentException("seasonalWeight must be in [0, 1]: " + seasonalWeight);
    }
    if (calibrationWindow.isNegative() || calibrationWindow.isZero()) {
      throw new IllegalArgumentException("calibrationWindow must be positive");
    }
    if (!(coverageMargin >= 0 && coverageMargin < 1)) {
      throw new IllegalArgumentException("coverageMargin must be in [0, 1): " + coverageMargin);
    }
    if (minResiduals < 1) {
      throw new IllegalArgumentException("minResiduals must be at least 1");
    }
    if (!(coldStartMinMargin >= 0) || !(coldStartSpreadFactor >= 0)) {
      throw new IllegalArgumentException("cold-start margins must not be negative");
    }
    if (persistenceLookback.isNegative() || persistenceLookback.isZero()) {
      throw new IllegalArgumentException("persistenceLookback must be positive");
    }
    if (!(shiftRatio > 1)) {
      throw new IllegalArgumentException("shiftRatio must be above 1: " + shiftRatio);
    }
    if (shiftConfirm.isNegative()) {
      throw new IllegalArgumentException("shiftConfirm must not be negative");
    }
  }

  /** This config with another blend weight. */
  public CalibrationConfig withSeasonalWeight(double weight) {
    return new CalibrationConfig(weight, calibrationWindow, coverageMargin, minResiduals,
        coldStartMinMargin, coldStartSpreadFactor, persistenceLookback, persistenceWindow,
        calibrationBand, shiftRatio, shiftConfirm);
  }

  /** This config with another number of settled forecasts needed before calibrating. */
  public CalibrationConfig withMinResiduals(int residuals) {
    return new CalibrationConfig(seasonalWeight, calibrationWindow, coverageMargin, residuals,
        coldStartMinMargin, coldStartSpreadFactor, persistenceLookback, persistenceWindow,
        calibrationBand, shiftRatio, shiftConfirm);
  }

  /** This config with another coverage margin. */
  public CalibrationConfig withCoverageMargin(double margin) {
    return new CalibrationConfig(seasonalWeight, calibrationWindow, margin, minResiduals,
        coldStartMinMargin, coldStartSpreadFactor, persistenceLookback, persistenceWindow,
        calibrationBand, shiftRatio, shiftConfirm);
  }

  /** This config with another persistence window. */
  public CalibrationConfig withPersistenceWindow(Duration window) {
    return new CalibrationConfig(seasonalWeight, calibrationWindow, coverageMargin, minResiduals,
        coldStartMinMargin, coldStartSpreadFactor, persistenceLookback, window, calibrationBand,
        shiftRatio, shiftConfirm);
  }

  /** This config calibrated by time-of-day band ({@link Duration#ZERO}: on all). */
  public CalibrationConfig withCalibrationBand(Duration band) {
    return new CalibrationConfig(seasonalWeight, calibrationWindow, coverageMargin, minResiduals,
        coldStartMinMargin, coldStartSpreadFactor, persistenceLookback, persistenceWindow, band,
        shiftRatio, shiftConfirm);
  }

  /** This config with shift detection after {@code confirm} ({@link Duration#ZERO}: off). */
  public CalibrationConfig withShiftConfirm(Duration confirm) {
    return new CalibrationConfig(seasonalWeight, calibrationWindow, coverageMargin, minResiduals,
        coldStartMinMargin, coldStartSpreadFactor, persistenceLookback, persistenceWindow,
        calibrationBand, shiftRatio, confirm);
  }
}
