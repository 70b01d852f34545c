package io.tideline.core.fragmentation;

/**
 * The class of the current time slot (F4), as the forecaster's slot engine labels it. Migration
 * disturbs running work, so defragmentation is allowed only in quiet slots and never at peak (T4).
 */
public enum SlotClass {
  /** Demand peak (e.g. morning or evening rise): no migrations at all. */
  PEAK,
  /** Steady daytime load. */
  FLAT,
  /** Low demand. */
  TROUGH,
  /** Lowest demand of the day (e.g. around midnight). */
  DEEP_TROUGH
}
