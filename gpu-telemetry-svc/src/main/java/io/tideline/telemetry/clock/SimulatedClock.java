package io.tideline.telemetry.clock;

import io.tideline.events.ClockTick;
import java.time.Instant;
import java.util.List;

/**
 * What the simulator drives: it advances simulated cluster time and every tick passed is
 * published on cluster.clock with {@code source = SIMULATED}, so services advance logical time
 * exactly as in production, only faster.
 */
public interface SimulatedClock {

  /** Advances simulated time to {@code now}; returns the ticks published. */
  List<ClockTick> advanceTo(Instant now);
}
