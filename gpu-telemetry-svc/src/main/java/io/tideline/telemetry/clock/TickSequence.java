package io.tideline.telemetry.clock;

import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The ticks of one cluster clock: one at every multiple of the interval since the epoch, numbered
 * by that multiple ({@code sequence = time / interval}), so a restarted publisher continues the
 * same numbering and a gap in sequence numbers reveals lost ticks. Pure: the caller says what time
 * it is (the wall clock in production, simulated time under the simulator).
 *
 * <p>The first advance emits only the latest tick at or before that time (no backfill from the
 * epoch); later advances emit every tick passed, in order. Time going backwards emits nothing.
 */
public final class TickSequence {

  private final String cluster;
  private final long intervalMillis;
  private final ClockSource source;
  private long lastSequence = Long.MIN_VALUE;

  public TickSequence(String cluster, Duration interval, ClockSource source) {
    if (interval.toMillis() <= 0) {
      throw new IllegalArgumentException("tick interval must be positive, got " + interval);
    }
    this.cluster = cluster;
    this.intervalMillis = interval.toMillis();
    this.source = source;
  }

  /** The ticks due up to and including {@code now}. */
  public List<ClockTick> advanceTo(Instant now) {
    long due = Math.floorDiv(now.toEpochMilli(), intervalMillis);
    List<ClockTick> out = new ArrayList<>();
    long from = lastSequence == Long.MIN_VALUE ? due : lastSequence + 1;
    for (long seq = from; seq <= due; seq++) {
      out.add(ClockTick.newBuilder()
          .setCluster(cluster)
          .setTime(Instant.ofEpochMilli(seq * intervalMillis))
          .setSequence(seq)
          .setIntervalMillis(intervalMillis)
          .setSource(source)
          .build());
    }
    if (due > lastSequence) {
      lastSequence = due;
    }
    return out;
  }
}
