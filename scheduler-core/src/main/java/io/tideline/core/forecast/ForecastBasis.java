package io.tideline.core.forecast;

/** Which history a slot forecast was computed from (F1), so a reservation can say why. */
public enum ForecastBasis {
  /** A regular slot, from the same slot of the regular days in the rolling window. */
  REGULAR_HISTORY,
  /** A holiday slot, from the same slot of past holidays only. */
  HOLIDAY_HISTORY,
  /**
   * A holiday slot with too little holiday history: the regular-day statistics of the same slot
   * scaled by {@link ForecastConfig#holidayFallbackFactor()}.
   */
  REGULAR_SCALED_FOR_HOLIDAY,
  /** No usable sample for this slot: all quantiles are 0 and no reservation follows. */
  NO_HISTORY,
  /**
   * A service too new to have the slot in its history (issue #21 cold start): the last known
   * level, with a margin that widens with the recent spread of usage until enough forecasts have
   * been settled to calibrate it.
   */
  COLD_START,
  /**
   * A detected level shift left no same-slot history after the shift: as {@link #COLD_START},
   * from the level since the shift (the older history is no longer trusted).
   */
  LEVEL_SHIFT
}
