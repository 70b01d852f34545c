package io.tideline.core.forecast;

import com.datadoghq.sketch.ddsketch.DDSketch;
import com.datadoghq.sketch.ddsketch.DDSketches;
import com.datadoghq.sketch.ddsketch.encoding.ByteArrayInput;
import com.datadoghq.sketch.ddsketch.encoding.GrowingByteArrayOutput;
import com.datadoghq.sketch.ddsketch.store.UnboundedSizeDenseStore;
import io.tideline.core.slots.SlotGrid;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
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
 * One service's usage history by (local day, slot of the day): the F1 state a Kafka Streams store
 * holds as bytes ({@link #toBytes()} / {@link #fromBytes(byte[])}).
 *
 * <p>Each (day, slot) keeps a DDSketch of the usage samples recorded in it. DDSketch (Datadog's
 * {@code sketches-java}) was chosen because (1) its quantiles carry a <em>relative</em>-accuracy
 * guarantee (every quantile within ±α of the exact value, whatever the distribution, which suits
 * GPU counts spanning 1 to thousands), (2) sketches merge exactly, so the rolling window is the
 * merge of the wanted days and a day leaves the window exactly when it is no longer merged, with
 * no decay approximation, and (3) it has a compact, versioned binary encoding. Memory is bounded
 * by the sketch bins, not by the number of samples ("no heavy time-series model", F1).
 *
 * <p>Recording does not know about holidays: days are classified by the {@link HolidayCalendar}
 * at query time. The class is a mutable accumulator owned by one store task; it is not
 * thread-safe. Decisions read it through {@link SlotForecaster}.
 */
public final class SlotHistory {

  private static final int MAGIC = 0x54534831; // "TSH1"
  private static final byte VERSION = 1;

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
    Day day = days.computeIfAbsent(grid.date(at), d -> new Day());
    day.slots.computeIfAbsent(grid.slotIndex(at), s -> newSketch()).accept(gpus);
    day.max = Math.max(day.max, gpus);
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

  /** The state as bytes, for a state store. {@code fromBytes(toBytes())} restores it exactly. */
  public byte[] toBytes() {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeInt(MAGIC);
      out.writeByte(VERSION);
      out.writeUTF(serviceId);
      out.writeUTF(grid.zone().getId());
      out.writeLong(grid.slotLength().toSeconds());
      out.writeDouble(relativeAccuracy);
      out.writeInt(days.size());
      for (Map.Entry<LocalDate, Day> day : days.entrySet()) {
        out.writeLong(day.getKey().toEpochDay());
        out.writeDouble(day.getValue().max);
        out.writeInt(day.getValue().slots.size());
        for (Map.Entry<Integer, DDSketch> slot : day.getValue().slots.entrySet()) {
          GrowingByteArrayOutput encoded = GrowingByteArrayOutput.withDefaultInitialCapacity();
          slot.getValue().encode(encoded, false);
          out.writeInt(slot.getKey());
          out.writeInt(encoded.numWrittenBytes());
          out.write(encoded.backingArray(), 0, encoded.numWrittenBytes());
        }
      }
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException("in-memory encoding failed", e);
    }
  }

  /**
   * Restores a history written by {@link #toBytes()}.
   *
   * @throws IllegalArgumentException if the bytes are not a history of a known version
   */
  public static SlotHistory fromBytes(byte[] bytes) {
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
      if (in.readInt() != MAGIC) {
        throw new IllegalArgumentException("not a slot history (bad magic)");
      }
      byte version = in.readByte();
      if (version != VERSION) {
        throw new IllegalArgumentException("unknown slot history version " + version);
      }
      String serviceId = in.readUTF();
      ZoneId zone = ZoneId.of(in.readUTF());
      Duration slotLength = Duration.ofSeconds(in.readLong());
      SlotHistory history =
          new SlotHistory(serviceId, new SlotGrid(slotLength, zone), in.readDouble());
      int dayCount = in.readInt();
      for (int d = 0; d < dayCount; d++) {
        LocalDate date = LocalDate.ofEpochDay(in.readLong());
        Day day = new Day();
        day.max = in.readDouble();
        int slotCount = in.readInt();
        for (int s = 0; s < slotCount; s++) {
          int slot = in.readInt();
          byte[] encoded = new byte[in.readInt()];
          in.readFully(encoded);
          day.slots.put(slot, DDSketch.decode(ByteArrayInput.wrap(encoded),
              UnboundedSizeDenseStore::new));
        }
        history.days.put(date, day);
      }
      if (in.available() != 0) {
        throw new IllegalArgumentException("trailing bytes after slot history");
      }
      return history;
    } catch (IOException | RuntimeException e) {
      if (e instanceof IllegalArgumentException iae) {
        throw iae;
      }
      throw new IllegalArgumentException("malformed slot history: " + e.getMessage(), e);
    }
  }

  private DDSketch newSketch() {
    return DDSketches.unboundedDense(relativeAccuracy);
  }

  /** A merged sketch and how many days contributed to it. */
  record Merged(DDSketch sketch, int daysUsed) {}

  /** One local day: a sketch per slot that saw samples, and the day's exact maximum. */
  private static final class Day {
    private final TreeMap<Integer, DDSketch> slots = new TreeMap<>();
    private double max;
  }
}
