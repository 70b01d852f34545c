package io.tideline.core.pricing;

import io.tideline.core.slots.SlotClass;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.TreeMap;

/**
 * A slot map that repeats every day in a time zone: each entry is the local time a class starts.
 * The forecaster's slot engine (F4) re-derives it periodically; pricing takes it as given.
 */
public final class DailySlotSchedule implements SlotTimeline {

  /**
   * Requirement F4's example day: 00:00 deep trough, 06:00 morning peak, 10:00 flat, 18:00 evening
   * peak; plus 22:00 trough (our choice: W2's daytime window ends at 22:00; how much of the day's
   * demand that window holds is measured on traces, never assumed: 62% on the shared trace), in UTC.
   */
  public static final DailySlotSchedule EXAMPLE = new DailySlotSchedule(ZoneOffset.UTC, Map.of(
      LocalTime.MIDNIGHT, SlotClass.DEEP_TROUGH,
      LocalTime.of(6, 0), SlotClass.PEAK,
      LocalTime.of(10, 0), SlotClass.FLAT,
      LocalTime.of(18, 0), SlotClass.PEAK,
      LocalTime.of(22, 0), SlotClass.TROUGH));

  private final ZoneId zone;
  private final TreeMap<LocalTime, SlotClass> starts;

  /** A schedule from each class's local start time; at least one entry. */
  public DailySlotSchedule(ZoneId zone, Map<LocalTime, SlotClass> starts) {
    if (starts.isEmpty()) {
      throw new IllegalArgumentException("a daily schedule needs at least one slot");
    }
    this.zone = zone;
    this.starts = new TreeMap<>(starts);
  }

  @Override
  public SlotClass slotAt(Instant t) {
    LocalTime local = t.atZone(zone).toLocalTime();
    Map.Entry<LocalTime, SlotClass> e = starts.floorEntry(local);
    return (e != null ? e : starts.lastEntry()).getValue(); // before the first start: yesterday's last
  }

  @Override
  public Instant nextBoundaryAfter(Instant t) {
    ZonedDateTime z = t.atZone(zone);
    LocalDate day = z.toLocalDate();
    // 1. The next start later today, else the first start tomorrow (skipping DST-shifted repeats).
    for (int d = 0; d <= 2; d++) {
      for (LocalTime start : starts.keySet()) {
        Instant candidate = ZonedDateTime.of(day.plusDays(d), start, zone).toInstant();
        if (candidate.isAfter(t)) {
          return candidate;
        }
      }
    }
    throw new IllegalStateException("no slot boundary after " + t);
  }
}
