package io.tideline.core.forecast;

import com.datadoghq.sketch.ddsketch.DDSketch;
import com.datadoghq.sketch.ddsketch.DDSketches;
import com.datadoghq.sketch.ddsketch.encoding.ByteArrayInput;
import com.datadoghq.sketch.ddsketch.encoding.GrowingByteArrayOutput;
import com.datadoghq.sketch.ddsketch.store.UnboundedSizeDenseStore;
import io.tideline.core.slots.SlotGrid;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Collections;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * One service's usage history by (local day, slot of the day): the F1 state the forecast kernel
 * keeps per service ({@link #storedDays()} / {@link #restore} for its store record).
 *
 * <p>Each (day, slot) keeps a DDSketch of the usage samples recorded in it. DDSketch (Datadog's
 * {@code sketches-java}) was chosen because (1) its quantiles carry a <em>relative</em>-accuracy
 * guarantee (every quantile within ±α of the exact value, whatever the distribution, which suits
 * GPU counts spanning 1 to thousands), (2) sketches merge exactly, so the rolling window is the
 * merge of the wanted days and a day leaves the window exactly when it is no longer merged, with
 * no decay approximation, and (3) it has a compact, versioned binary encoding of its own, which
 * the store record carries per slot. Memory is bounded
 * by the sketch bins, not by the number of samples ("no heavy time-series model", F1).
 *
 * <p>Recording does not know about holidays: days are classified by the {@link HolidayCalendar}
 * at query time. Two forms of use: {@link #record} adds to this history (an accumulator owned
 * by one thread), {@link #plus} and {@link #pruned} return a new history and leave this one as
 * it was (what the forecast kernel's immutable state uses). Both copy on write: days and sketches
 * are shared between histories derived from one another and never changed in place, so the two
 * forms can be mixed safely. Not thread-safe. Decisions read it through {@link SlotForecaster}
 * and {@link DemandForecaster}.
 */
public final class SlotHistory {

    private final String serviceId;
  private final SlotGrid grid;
  private final double relativeAccuracy;
  private final TreeMap<LocalDate, Day> days = new TreeMap<>();

  private SlotHistory(String serviceId, SlotGrid grid, double relativeAccuracy) {
    this.serviceId = Objects.requireNonNull(serviceId, "serviceId");
    this.grid = Objects.requireNonNull(grid, "grid");
    if (!(relativeAccuracy > 0 && relativeAccuracy < 1)) {
      throw new IllegalArgumentException(
          "relative accuracy must be in (0, 1): " + relativeAccuracy);
    }
    this.relativeAccuracy = relativeAccuracy;
  }

  /** An empty history for a service on {@code grid}. */
  public static SlotHistory empty(String serviceId, SlotGrid grid, double relativeAccuracy) {
    return new SlotHistory(serviceId, grid, relativeAccuracy);
  }

  /** An empty history using the slot length and sketch accuracy of {@code config}. */
  public static SlotHistory empty(String serviceId, ZoneId zone, ForecastConfig config) {
    return new SlotHistory(serviceId, config.grid(zone), config.sketchRelativeAccuracy());
  }

  public String serviceId() {
    return serviceId;
  }

  public SlotGrid grid() {
    return grid;
  }

  /** Relative accuracy α of every quantile read from this history. */
  public double relativeAccuracy() {
    return relativeAccuracy;
  }

  /** Local dates holding at least one sample, oldest first. */
  public NavigableSet<LocalDate> days() {
    return Collections.unmodifiableNavigableSet(days.navigableKeySet());
  }

  /**
   * Records one usage sample (GPUs in use by the service, possibly fractional) observed at
   * {@code at} into the sketch of its (day, slot).
   */
  public void record(Instant at, double gpus) {
    if (!Double.isFinite(gpus) || gpus < 0) {
      throw new IllegalArgumentException("usage must be a finite non-negative GPU count: " + gpus);
    }
    // Copy on write: a Day and its sketches may be shared with a history this one was derived
    // from (plus, pruned), so they are replaced, never changed in place.
    LocalDate date = grid.date(at);
    int slot = grid.slotIndex(at);
    Day before = days.get(date);
    Day day = before == null ? new Day() : before.copyShallow();
    DDSketch sketch = day.slots.get(slot);
    sketch = sketch == null ? newSketch() : sketch.copy();
    sketch.accept(gpus);
    day.slots.put(slot, sketch);
    day.max = Math.max(day.max, gpus);
    days.put(date, day);
  }

  /**
   * This history with one more sample, leaving this one untouched (the form a kernel's
   * immutable state uses): the new history shares every day but the one recorded into.
   */
  public SlotHistory plus(Instant at, double gpus) {
    SlotHistory next = shallowCopy();
    next.record(at, gpus);
    return next;
  }

  /** This history without the days {@link #prune} drops, leaving this one untouched. */
  public SlotHistory pruned(LocalDate today, HolidayCalendar calendar, ForecastConfig config) {
    SlotHistory next = shallowCopy();
    next.prune(today, calendar, config);
    return next;
  }

  /**
   * Mean usage recorded in the slot starting at {@code slotStart} (its samples' mean), or empty
   * when nothing was recorded in it: a slot without samples is missing data, never 0.
   */
  public java.util.OptionalDouble slotMean(Instant slotStart) {
    Day day = days.get(grid.date(slotStart));
    DDSketch sketch = day == null ? null : day.slots.get(grid.slotIndex(slotStart));
    return sketch == null || sketch.isEmpty() ? java.util.OptionalDouble.empty()
        : java.util.OptionalDouble.of(sketch.getSum() / sketch.getCount());
  }

  /**
   * The samples of every slot starting in {@code [from, toExclusive)}, merged (a fresh sketch):
   * the recent usage a cold start measures its spread on.
   */
  DDSketch mergeSlots(Instant from, Instant toExclusive) {
    DDSketch merged = newSketch();
    for (Instant t = grid.slotStartOf(from); t.isBefore(toExclusive); t = t.plus(grid.slotLength())) {
      if (t.isBefore(from)) {
        continue;
      }
      Day day = days.get(grid.date(t));
      DDSketch sketch = day == null ? null : day.slots.get(grid.slotIndex(t));
      if (sketch != null && !sketch.isEmpty()) {
        merged.mergeWith(sketch);
      }
    }
    return merged;
  }

  private SlotHistory shallowCopy() {
    SlotHistory copy = new SlotHistory(serviceId, grid, relativeAccuracy);
    copy.days.putAll(days);
    return copy;
  }

  /**
   * Drops the days no forecast on or after {@code today} can use: regular days before the
   * regular window and holidays before the holiday window.
   */
  public void prune(LocalDate today, HolidayCalendar calendar, ForecastConfig config) {
    LocalDate regularStart = today.minusDays(config.windowDays());
    LocalDate holidayStart = today.minusDays(config.holidayWindowDays());
    days.keySet().removeIf(date -> calendar.kindOf(date) == DayKind.HOLIDAY
        ? date.isBefore(holidayStart)
        : date.isBefore(regularStart));
  }

  /**
   * Merges the sketches of slot {@code slot} over the days in {@code [from, toExclusive)} that
   * pass {@code include}; a fresh sketch, the stored ones are untouched.
   */
  Merged merge(LocalDate from, LocalDate toExclusive, int slot, Predicate<LocalDate> include) {
    DDSketch merged = newSketch();
    int daysUsed = 0;
    for (Map.Entry<LocalDate, Day> entry : days.subMap(from, true, toExclusive, false).entrySet()) {
      DDSketch sketch = entry.getValue().slots.get(slot);
      if (sketch != null && !sketch.isEmpty() && include.test(entry.getKey())) {
        merged.mergeWith(sketch);
        daysUsed++;
      }
    }
    return new Merged(merged, daysUsed);
  }

  /**
   * Historical peak (input to the Q1/Q5 online guarantee): the largest sample recorded on any day
   * (holidays included) of the {@code windowDays} days ending with {@code today}.
   */
  public PeakUsage peak(LocalDate today, int windowDays) {
    LocalDate start = today.minusDays(windowDays - 1L);
    double peak = 0;
    LocalDate peakDay = null;
    for (Map.Entry<LocalDate, Day> entry : days.subMap(start, true, today, true).entrySet()) {
      if (peakDay == null || entry.getValue().max > peak) {
        peak = entry.getValue().max;
        peakDay = entry.getKey();
      }
    }
    return new PeakUsage(serviceId, peak, peakDay, start, today);
  }

  /**
   * Mean usage per slot over the regular days of the {@code windowDays} days before
   * {@code today}: the profile the F4 slot engine clusters. A slot with no sample counts as 0.
   */
  public double[] meanProfile(LocalDate today, int windowDays, HolidayCalendar calendar) {
    double[] profile = new double[grid.slotsPerDay()];
    LocalDate start = today.minusDays(windowDays);
    for (int slot = 0; slot < profile.length; slot++) {
      DDSketch merged =
          merge(start, today, slot, d -> calendar.kindOf(d) == DayKind.REGULAR).sketch();
      profile[slot] = merged.isEmpty() ? 0 : merged.getSum() / merged.getCount();
    }
    return profile;
  }

  private DDSketch newSketch() {
    return DDSketches.unboundedDense(relativeAccuracy);
  }

  /** A merged sketch and how many days contributed to it. */
  record Merged(DDSketch sketch, int daysUsed) {}

  /**
   * One day of the history as it is stored: the day's exact maximum and, per slot that saw
   * samples, the slot's DDSketch in the library's own versioned binary encoding
   * ({@code DDSketch.encode}; sketches-java), which {@link #restore} decodes exactly.
   *
   * @param date the local date
   * @param max the largest sample recorded that day
   * @param sketches slot index to encoded sketch, in slot order
   */
  public record StoredDay(LocalDate date, double max, java.util.SortedMap<Integer, byte[]> sketches) {
    public StoredDay {
      Objects.requireNonNull(date, "date");
      sketches = Collections.unmodifiableSortedMap(new TreeMap<>(sketches));
    }
  }

  /** The days as they are stored (oldest first); {@link #restore} rebuilds this history. */
  public java.util.List<StoredDay> storedDays() {
    java.util.List<StoredDay> out = new java.util.ArrayList<>(days.size());
    days.forEach((date, day) -> {
      TreeMap<Integer, byte[]> sketches = new TreeMap<>();
      day.slots.forEach((slot, sketch) -> sketches.put(slot, encode(sketch)));
      out.add(new StoredDay(date, day.max, sketches));
    });
    return out;
  }

  /** The history {@link #storedDays()} described, exactly. */
  public static SlotHistory restore(String serviceId, SlotGrid grid, double relativeAccuracy,
      java.util.List<StoredDay> stored) {
    SlotHistory history = new SlotHistory(serviceId, grid, relativeAccuracy);
    for (StoredDay d : stored) {
      Day day = new Day();
      day.max = d.max();
      d.sketches().forEach((slot, bytes) -> day.slots.put(slot, decode(bytes)));
      history.days.put(d.date(), day);
    }
    return history;
  }

  private static byte[] encode(DDSketch sketch) {
    try {
      GrowingByteArrayOutput encoded = GrowingByteArrayOutput.withDefaultInitialCapacity();
      sketch.encode(encoded, false);
      return java.util.Arrays.copyOf(encoded.backingArray(), encoded.numWrittenBytes());
    } catch (IOException e) {
      throw new UncheckedIOException("in-memory encoding failed", e);
    }
  }

  private static DDSketch decode(byte[] bytes) {
    try {
      return DDSketch.decode(ByteArrayInput.wrap(bytes), UnboundedSizeDenseStore::new);
    } catch (IOException e) {
      throw new IllegalArgumentException("malformed slot sketch: " + e.getMessage(), e);
    }
  }

  /**
   * Equal when the service, grid, accuracy and every recorded day are equal (sketches compared
   * by their encoding). Cheap for histories derived from one another: shared days are the same
   * objects.
   */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof SlotHistory other) || !serviceId.equals(other.serviceId)
        || !grid.equals(other.grid) || relativeAccuracy != other.relativeAccuracy
        || !days.keySet().equals(other.days.keySet())) {
      return false;
    }
    for (Map.Entry<LocalDate, Day> e : days.entrySet()) {
      if (!e.getValue().sameAs(other.days.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    return Objects.hash(serviceId, grid, days.keySet());
  }

  @Override
  public String toString() {
    return "SlotHistory[" + serviceId + ", " + days.size() + " days]";
  }

  /** One local day: a sketch per slot that saw samples, and the day's exact maximum. */
  private static final class Day {
    private final TreeMap<Integer, DDSketch> slots = new TreeMap<>();
    private double max;

    /** A new day sharing this one's sketches (which are then never changed in place). */
    Day copyShallow() {
      Day d = new Day();
      d.slots.putAll(slots);
      d.max = max;
      return d;
    }

    boolean sameAs(Day other) {
      if (this == other) {
        return true;
      }
      if (other == null || max != other.max || !slots.keySet().equals(other.slots.keySet())) {
        return false;
      }
      for (Map.Entry<Integer, DDSketch> e : slots.entrySet()) {
        DDSketch theirs = other.slots.get(e.getKey());
        if (e.getValue() != theirs
            && !java.util.Arrays.equals(encode(e.getValue()), encode(theirs))) {
          return false;
        }
      }
      return true;
    }
  }
}
