package io.tideline.core.pricing;

/**
 * The price classes of the day (requirements B1, F4), cheapest first. The forecaster's slot engine
 * decides which instant has which class; pricing only reads it.
 */
public enum SlotClass {
  DEEP_TROUGH,
  TROUGH,
  FLAT,
  PEAK
}
