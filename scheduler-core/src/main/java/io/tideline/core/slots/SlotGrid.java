package io.tideline.core.slots;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Objects;

/**
 * The division of every local day into equal slots (F1, F4), so forecasting, reservations and
 * slot classes all agree on what "the 08:15 slot" means.
 *
 * <p>A slot index is derived from the wall-clock time of day in {@code zone}: on a daylight-saving
 * day the repeated hour maps twice onto the same slots and the skipped hour leaves its slots
 * empty, which is the behaviour a "same time of day" statistic wants.
 *
 * @param slotLength length of one slot; must divide 24 h exactly (F1 default 15 min)
 * @param zone the zone whose local days and times define slots (the holiday calendar's zone)
 */
public record SlotGrid(Duration slotLength, ZoneId zone) {

  private static final long SECONDS_PER_DAY = Duration.ofDays(1).toSeconds();

  public SlotGrid {
    Objects.requireNonNull(slotLength, "slotLength");
    Objects.requireNonNull(zone, "zone");
    long seconds = slotLength.toSeconds();
    if (seconds <= 0 || SECONDS_PER_DAY % seconds != 0 || slotLength.toNanosPart() != 0) {
      throw new IllegalArgumentException("slot length must divide one day: " + slotLength);
    }
  }

  /** Number of slots in one day (96 for 15-minute slots). */
  public int slotsPerDay() {
    return (int) (SECONDS_PER_DAY / slotLength.toSeconds());
  }

  /** Local date of an instant in this grid's zone. */
  public LocalDate date(Instant at) {
    return at.atZone(zone).toLocalDate();
  }

  /** Index (0-based) of the slot of the day holding {@code at}. */
  public int slotIndex(Instant at) {
    return (int) (at.atZone(zone).toLocalTime().toSecondOfDay() / slotLength.toSeconds());
  }

  /** Start of slot {@code index} on local {@code date}. */
  public Instant slotStart(LocalDate date, int index) {
    if (index < 0 || index >= slotsPerDay()) {
      throw new IllegalArgumentException("slot index out of range: " + index);
    }
    LocalTime time = LocalTime.ofSecondOfDay(index * slotLength.toSeconds());
    return ZonedDateTime.of(date, time, zone).toInstant();
  }

  /** Start of the slot holding {@code at}. */
  public Instant slotStartOf(Instant at) {
    return slotStart(date(at), slotIndex(at));
  }

  /** End (exclusive) of the slot holding {@code at}: the next slot boundary. */
  public Instant slotEndOf(Instant at) {
    return slotStartOf(at).plus(slotLength);
  }

  /** Whether {@code at} is exactly a slot boundary. */
  public boolean isSlotStart(Instant at) {
    return slotStartOf(at).equals(at);
  }
}
