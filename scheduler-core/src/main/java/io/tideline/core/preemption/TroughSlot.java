package io.tideline.core.preemption;

import java.time.Instant;

/**
 * A forecast low-demand slot (F4 TROUGH or DEEP_TROUGH), when preempted training can expect room.
 *
 * @param start slot start
 * @param end slot end (exclusive)
 */
public record TroughSlot(Instant start, Instant end) implements Comparable<TroughSlot> {

  @Override
  public int compareTo(TroughSlot o) {
    int c = start.compareTo(o.start);
    return c != 0 ? c : end.compareTo(o.end);
  }
}
