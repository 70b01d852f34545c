package io.tideline.forecaster.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.tideline.core.forecast.CalibrationConfig;
import io.tideline.core.forecast.ForecastConfig;
import io.tideline.core.forecast.Quantile;
import io.tideline.core.forecast.ReservationConfig;
import io.tideline.core.forecast.kernel.ForecastKernelConfig;
import io.tideline.core.slots.SlotClassifierConfig;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;

/**
 * The forecaster's policy ({@code tideline.forecast.*}). The defaults are those of the core
 * configs ({@link ForecastKernelConfig#defaults}: {@link ForecastConfig#DEFAULTS} with
 * {@link CalibrationConfig#DEFAULTS}, {@link ReservationConfig#DEFAULTS},
 * {@link SlotClassifierConfig#DEFAULTS}); a test checks they agree, so the service and the
 * simulator decide with the same numbers.
 */
@ConfigMapping(prefix = "tideline.forecast")
public interface ForecasterConfig {

  /** Zone whose local days and times define slots and holidays (F1), e.g. Asia/Shanghai. */
  @WithDefault("UTC")
  ZoneId zone();

  /** Length of a time slot of the day (F1). */
  @WithDefault("PT15M")
  Duration slotLength();

  /** Rolling window of regular days a slot is forecast from (F1 "past two weeks"). */
  @WithDefault("14")
  int windowDays();

  /** How far back holiday history is used (F1 holiday flag). */
  @WithDefault("365")
  int holidayWindowDays();

  /** Holidays with data needed before a holiday slot uses holiday history alone (F1). */
  @WithDefault("3")
  int minHolidayDays();

  /** Scale of regular-day quantiles for a holiday slot without enough holiday history (F1). */
  @WithDefault("1.0")
  double holidayFallbackFactor();

  /** Relative accuracy of the DDSketch quantiles (F1 bounded memory). */
  @WithDefault("0.01")
  double sketchRelativeAccuracy();

  /**
   * How far back the F1 level correction compares today's complete slots with their same-slot
   * medians (issue #4 accuracy: MAPE of p50 22% vs 50% naive with 1 h); PT0S turns it off.
   */
  @WithDefault("PT1H")
  Duration levelWindow();

  /** Bound of the F1 level correction: the scale stays in [1/x, x]. */
  @WithDefault("3.0")
  double maxLevelFactor();

  /** How long before a slot its reservation is issued (F2). */
  @WithDefault("PT15M")
  Duration leadTime();

  /** How long before a reservation ends its unused GPUs are released (F3). */
  @WithDefault("PT10M")
  Duration releaseEarly();

  /** Forecast quantile a reservation covers (F1/F2). */
  @WithDefault("P90")
  Quantile quantile();

  /** Cap on GPUs over-issued from the shared pool on under-forecast (F3). */
  @WithDefault("16")
  int maxOverIssueGpus();

  /**
   * What a reservation's start evicts for (ADR 0039): MEDIAN the part the forecast median expects,
   * ON_WAIT nothing until an instance waits, RESERVED the whole reservation.
   */
  @WithDefault("MEDIAN")
  ReservationConfig.StartEviction startEviction();

  /** Seed of the F4 K-means++ generator (same profile, same map: O2 replay). */
  @WithDefault("20261102")
  long slotClassifierSeed();

  /** Upper bound on F4 K-means iterations. */
  @WithDefault("300")
  int slotClassifierMaxIterations();

  /**
   * Holidays from configuration (ISO dates, F1 holiday flag); the {@code forecast.holidays}
   * topic adds and removes more at run time.
   */
  Optional<List<LocalDate>> holidays();

  /**
   * How long after a minute ends the kernel waits for its GPU observations before it attributes
   * and records the minute (clock-tick time).
   */
  @WithDefault("PT1M")
  Duration minuteGrace();

  /**
   * How long a GPU whose samples turn STALE (or stop) keeps counting for the owner of its last OK
   * sample. Beyond it the owner's minute is unknown and not recorded: a stale GPU is never read
   * as 0 usage.
   */
  @WithDefault("PT2M")
  Duration staleCarry();

  /**
   * How long a GPU that stopped reporting is remembered (making its last owner's minutes unknown
   * past the carry) before it is forgotten as gone.
   */
  @WithDefault("PT10M")
  Duration silentForget();

  /** How far ahead of the forecaster's clock an input's event time may be before it is refused. */
  @WithDefault("PT10M")
  Duration maxInputLead();

  /** How long a job is remembered after it ends. */
  @WithDefault("P1D")
  Duration jobMemory();

  /**
   * Weight of the same-slot forecast in the median; the rest goes to the last known level
   * carried along the day's shape (issue #21 blend).
   */
  @WithDefault("0.5")
  double seasonalWeight();

  /** How far back settled forecasts calibrate the quantiles (issue #21). */
  @WithDefault("P7D")
  Duration calibrationWindow();

  /** Added to a quantile's level before it is read off the recent errors (drift allowance). */
  @WithDefault("0.02")
  double coverageMargin();

  /** Settled forecasts needed before the calibrated quantile is used. */
  @WithDefault("24")
  int minResiduals();

  /** Smallest margin of a cold-start forecast above the last known level. */
  @WithDefault("0.2")
  double coldStartMinMargin();

  /** How much the recent spread of usage widens the cold-start margin. */
  @WithDefault("1.0")
  double coldStartSpreadFactor();

  /** How far back the last known level is looked for (a gap never makes it 0). */
  @WithDefault("PT24H")
  Duration persistenceLookback();

  /**
   * How many recent slots the last known level averages (the slots with data in this window
   * ending at the latest one, each carried along the day's shape).
   */
  @WithDefault("PT40M")
  Duration persistenceWindow();

  /**
   * Calibrate the quantiles only on settled forecasts within this band of the target's time of
   * day (PT0S: on all of them).
   */
  @WithDefault("PT0S")
  Duration calibrationBand();

  /** Ratio of actual to same-slot median beyond which a settled slot counts to a level shift. */
  @WithDefault("2.0")
  double shiftRatio();

  /** How long slots must stay beyond the shift ratio to declare a level shift (PT0S: off). */
  @WithDefault("PT3H")
  Duration shiftConfirm();

  /** The settings as the plain record the topology takes. */
  default ForecastSettings settings(String cluster, String service) {
    CalibrationConfig calibration = new CalibrationConfig(seasonalWeight(), calibrationWindow(),
        coverageMargin(), minResiduals(), coldStartMinMargin(), coldStartSpreadFactor(),
        persistenceLookback(), persistenceWindow(), calibrationBand(), shiftRatio(),
        shiftConfirm());
    return new ForecastSettings(service, new ForecastKernelConfig(cluster, zone(),
        new ForecastConfig(slotLength(), windowDays(), holidayWindowDays(), minHolidayDays(),
            holidayFallbackFactor(), sketchRelativeAccuracy(), levelWindow(), maxLevelFactor(),
            calibration),
        new ReservationConfig(leadTime(), releaseEarly(), quantile(), maxOverIssueGpus(),
            startEviction()),
        new SlotClassifierConfig(slotClassifierSeed(), slotClassifierMaxIterations()),
        holidays().orElse(List.of()), minuteGrace(), staleCarry(), silentForget(), maxInputLead(),
        jobMemory()));
  }
}
