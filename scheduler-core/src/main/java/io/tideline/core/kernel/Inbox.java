package io.tideline.core.kernel;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.pcollections.TreePMap;

/**
 * The event-time inbox of a kernel: inputs wait here from their arrival until the first
 * {@link Tick} strictly after their event time, and leave it in the <em>canonical order</em>:
 * event time, then {@link Timed#rank() rank}, then {@link Timed#key() key}, then arrival sequence.
 *
 * <p>Why: a service reads several topics, and no transport promises the order in which records of
 * different topics (or partitions) arrive. Applying inputs at the tick in an order computed from
 * their content makes a cycle's decisions a function of <em>which</em> inputs carry a time before
 * the tick — not of when or in which order they arrived. The in-process twin and the services on
 * Kafka therefore decide identically once every input before a tick has arrived by that tick
 * (lockstep), and an audit replay of the input log reproduces every decision.
 *
 * <p>Immutable and persistent: {@link #add} and {@link #drainBefore} return new inboxes sharing
 * structure with this one (O(log n) each).
 *
 * @param <T> the kernel's input type
 */
public final class Inbox<T extends Timed> {

  /**
   * How far after a kernel's clock an input may be timed and still wait in the inbox: one day, the
   * same for every kernel, so no kernel refuses a record another one accepts. Hostile times are
   * refused at intake (event time against the record's timestamp, which the broker bounds); this
   * bound is for a stalled cluster clock: inputs wait through a clock outage of up to a day and are
   * applied, in order, when it ticks again, instead of being dead-lettered by one service while
   * another admits them. The scheduling kernels (placement, preemption, quota) use it. The
   * forecaster keeps its own, shorter bound ({@code ForecastKernelConfig#maxInputLead}, 10 min):
   * its inputs are a sample per GPU per minute, a day of which would not fit an inbox, and a
   * telemetry minute it refuses is a missing minute, never a lost job.
   */
  public static final java.time.Duration MAX_INPUT_LEAD = java.time.Duration.ofDays(1);

  /** The position of an entry in the canonical order. */
  public record Position(Instant at, int rank, String key, long seq) implements Comparable<Position> {

    private static final Comparator<Position> ORDER = Comparator.comparing(Position::at)
        .thenComparingInt(Position::rank).thenComparing(Position::key)
        .thenComparingLong(Position::seq);

    public Position {
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(key, "key");
    }

    @Override
    public int compareTo(Position o) {
      return ORDER.compare(this, o);
    }
  }

  /** One waiting input and its position. */
  public record Entry<T>(Position position, T input) {}

  /** What {@link #drainBefore} returns: the due inputs in canonical order, and the rest. */
  public record Drained<T extends Timed>(List<Entry<T>> due, Inbox<T> rest) {}

  private static final Inbox<?> EMPTY = new Inbox<>(TreePMap.empty(), 0);

  private final TreePMap<Position, T> entries;
  private final long nextSeq;

  private Inbox(TreePMap<Position, T> entries, long nextSeq) {
    this.entries = entries;
    this.nextSeq = nextSeq;
  }

  /** An empty inbox whose first arrival gets sequence 0. */
  @SuppressWarnings("unchecked")
  public static <T extends Timed> Inbox<T> empty() {
    return (Inbox<T>) EMPTY;
  }

  /** An empty inbox whose next arrival gets {@code nextSeq} (restoring a persisted one). */
  public static <T extends Timed> Inbox<T> startingAt(long nextSeq) {
    return new Inbox<>(TreePMap.empty(), nextSeq);
  }

  /** This inbox with {@code input} added under the next arrival sequence. */
  public Inbox<T> add(T input) {
    Position p = new Position(input.at(), input.rank(), input.key(), nextSeq);
    return new Inbox<>(entries.plus(p, input), nextSeq + 1);
  }

  /** This inbox with {@code input} restored at {@code seq} (which it had when it arrived). */
  public Inbox<T> restore(long seq, T input) {
    Position p = new Position(input.at(), input.rank(), input.key(), seq);
    return new Inbox<>(entries.plus(p, input), Math.max(nextSeq, seq + 1));
  }

  /** The inputs with an event time strictly before {@code tick}, in canonical order. */
  public Drained<T> drainBefore(Instant tick) {
    if (entries.isEmpty() || !entries.firstKey().at().isBefore(tick)) {
      return new Drained<>(List.of(), this);
    }
    Position bound = new Position(tick, Integer.MIN_VALUE, "", Long.MIN_VALUE);
    List<Entry<T>> due = new ArrayList<>();
    for (Map.Entry<Position, T> e : entries.headMap(bound, false).entrySet()) {
      due.add(new Entry<>(e.getKey(), e.getValue()));
    }
    return new Drained<>(due, new Inbox<>(entries.tailMap(bound, true), nextSeq));
  }

  /** The sequence the next arrival gets (persisted with the state). */
  public long nextSeq() {
    return nextSeq;
  }

  /** Inputs waiting. */
  public int size() {
    return entries.size();
  }

  /** Whether nothing waits. */
  public boolean isEmpty() {
    return entries.isEmpty();
  }

  /** The waiting entries in canonical order (for persistence and inspection). */
  public List<Entry<T>> entries() {
    List<Entry<T>> out = new ArrayList<>(entries.size());
    entries.forEach((p, t) -> out.add(new Entry<>(p, t)));
    return out;
  }
}
