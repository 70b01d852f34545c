package io.tideline.notifier.delivery;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;

/**
 * A user's quiet hours in their own zone: a notice whose event time falls inside them is held
 * until they end. {@code start == end} means no quiet hours; {@code end < start} spans midnight.
 *
 * @param start local start (inclusive)
 * @param end local end (exclusive)
 * @param zone the user's zone
 */
public record QuietHours(LocalTime start, LocalTime end, ZoneId zone) {

  /** No quiet hours. */
  public static QuietHours none() {
    return new QuietHours(LocalTime.MIDNIGHT, LocalTime.MIDNIGHT, ZoneId.of("UTC"));
  }

  /** Parses {@code HH:mm} bounds; null or blank bounds mean no quiet hours. */
  public static QuietHours parse(String start, String end, ZoneId zone) {
    if (start == null || end == null || start.isBlank() || end.isBlank()) {
      return new QuietHours(LocalTime.MIDNIGHT, LocalTime.MIDNIGHT, zone);
    }
    return new QuietHours(LocalTime.parse(start.trim()), LocalTime.parse(end.trim()), zone);
  }

  /** Whether local time of {@code t} is inside the quiet hours. */
  public boolean isQuiet(Instant t) {
    if (start.equals(end)) {
      return false;
    }
    LocalTime lt = t.atZone(zone).toLocalTime();
    return start.isBefore(end)
        ? !lt.isBefore(start) && lt.isBefore(end)
        : !lt.isBefore(start) || lt.isBefore(end);
  }

  /**
   * When a notice with event time {@code t} may go out: {@code t} itself, or the end of the quiet
   * hours it falls in (on the right local day, DST gaps resolved forwards).
   */
  public Instant releaseAt(Instant t) {
    if (!isQuiet(t)) {
      return t;
    }
    ZonedDateTime local = t.atZone(zone);
    LocalDate day = local.toLocalDate();
    // 1. Over midnight and still before midnight: the quiet hours end tomorrow.
    if (!start.isBefore(end) && !local.toLocalTime().isBefore(start)) {
      day = day.plusDays(1);
    }
    // 2. Otherwise they end today.
    return ZonedDateTime.of(day, end, zone).toInstant();
  }
}
