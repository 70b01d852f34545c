package io.tideline.core.forecast;

/**
 * The holiday flag of F1: a slot is forecast only from days of its own kind, so holiday traffic
 * never bends the regular-day statistics and the other way round.
 */
public enum DayKind {
  /** Any day not in the holiday calendar (weekends included unless the calendar lists them). */
  REGULAR,
  /** A day listed in the {@link HolidayCalendar}. */
  HOLIDAY
}
