package io.tideline.core.forecast;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Collections;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The holiday flag of F1: which local dates are holidays, in which zone. The zone also defines
 * where a local day (and so a slot of the day) begins for forecasting.
 *
 * <p>Days are classified when a forecast is made, not when usage is recorded, so adding a holiday
 * to the calendar later also moves its recorded history out of the regular statistics.
 *
 * @param zone the zone whose local dates the calendar lists (config, e.g. Asia/Shanghai)
 * @param holidays the holiday dates
 */
public record HolidayCalendar(ZoneId zone, NavigableSet<LocalDate> holidays) {

  public HolidayCalendar {
    Objects.requireNonNull(zone, "zone");
    holidays = Collections.unmodifiableNavigableSet(new TreeSet<>(holidays));
  }

  /** A calendar with no holidays. */
  public static HolidayCalendar none(ZoneId zone) {
    return new HolidayCalendar(zone, new TreeSet<>());
  }

  /** A calendar with the given holidays. */
  public static HolidayCalendar of(ZoneId zone, LocalDate... holidays) {
    TreeSet<LocalDate> dates = new TreeSet<>();
    Collections.addAll(dates, holidays);
    return new HolidayCalendar(zone, dates);
  }

  /** The kind of a local date. */
  public DayKind kindOf(LocalDate date) {
    return holidays.contains(date) ? DayKind.HOLIDAY : DayKind.REGULAR;
  }

  /** The kind of the local day holding {@code at}. */
  public DayKind kindAt(Instant at) {
    return kindOf(at.atZone(zone).toLocalDate());
  }
}
