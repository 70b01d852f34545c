package io.tideline.simulator;

import io.tideline.platform.kernel.HostRecord;
import io.tideline.platform.topics.TopicCatalogue;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * The twin's clock: plays the {@link World} against the schedulers over a {@link Transport} in
 * lockstep. Each round at tick {@code t}:
 * <ol>
 *   <li>the world publishes every event timed before {@code t}; the transport settles (every
 *       scheduler has them in its inbox);</li>
 *   <li>the tick {@code t} is published; the transport settles (every scheduler decided, and what
 *       they published reached the others' inboxes);</li>
 *   <li>the world reads what they published (in canonical order) and acts on it;</li>
 *   <li>the next tick is the earliest of: the next regular tick ({@code step} after the last),
 *       1 ms after the next urgent world event, and — while the schedulers' records cascade from
 *       one to another — 1 ms after {@code t} (at most {@code maxMicroTicks} in a row).</li>
 * </ol>
 * So simulated waits measure scheduling, not transport: a submission at {@code t} is admitted at
 * {@code t + 1 ms} and placed at {@code t + 2 ms}, whatever the broker's latency. Nothing here
 * reads a clock; the world and the kernels take {@code t} from the ticks.
 */
public final class Twin {

  /** Topics one scheduler publishes and another reads: their records continue a cascade. */
  public static final Set<String> CASCADE = Set.of(TopicCatalogue.QUOTA_VERDICTS,
      TopicCatalogue.CAPACITY_RESERVATIONS, TopicCatalogue.FORECAST_SLOTS,
      TopicCatalogue.PLACEMENT_LEDGER, TopicCatalogue.PREEMPTION_REQUESTS,
      TopicCatalogue.PREEMPTION_DECISIONS, TopicCatalogue.QUOTA_RECLAIMS,
      TopicCatalogue.EVICTIONS, TopicCatalogue.PLACEMENT_DECISIONS);

  /** Called after every round. */
  @FunctionalInterface
  public interface Progress {
    void round(Instant now, double done, World world);
  }

  /**
   * The clock's settings.
   *
   * @param step the regular tick interval (the production clock interval, simulated)
   * @param sampleEvery the measurement sample interval ({@link SimConfig#tick()})
   * @param maxMicroTicks cascade ticks in a row before the clock waits for the regular tick
   */
  public record Settings(Duration step, Duration sampleEvery, int maxMicroTicks) {
    public static Settings of(SimConfig config) {
      return new Settings(Duration.ofMinutes(1), config.tick(), 20);
    }
  }

  private static final Duration MICRO = Duration.ofMillis(1);

  private Twin() {}

  /** Runs the world from {@code start} to its horizon; returns what the world measured. */
  public static SimResult run(String policy, World world, Transport transport, Settings settings,
      Instant end, Progress progress) throws InterruptedException {
    SimConfig config = world.scenario().config();
    Instant start = config.start();
    world.start(start, end);
    Instant tick = start.plus(MICRO);
    Instant nextBase = start.plus(settings.step());
    Instant nextSample = start;
    long sequence = 0;
    int micro = 0;
    double horizon = Duration.between(start, end).toMillis();
    while (tick.isBefore(end)) {
      // 1. the world's events before the tick, then 2. the tick
      transport.publish(world.before(tick));
      transport.settle();
      transport.publish(List.of(world.tick(tick, sequence++, settings.step())));
      transport.settle();
      // 3. the world acts on what the schedulers published
      List<HostRecord> out = transport.collect();
      world.observe(out, tick);
      while (!nextSample.isAfter(tick)) {
        world.sample(nextSample);
        nextSample = nextSample.plus(settings.sampleEvery());
      }
      if (progress != null) {
        progress.round(tick, Duration.between(start, tick).toMillis() / horizon, world);
      }
      // 4. the next tick
      while (!nextBase.isAfter(tick)) {
        nextBase = nextBase.plus(settings.step());
      }
      Instant next = nextBase;
      Instant urgent = world.nextUrgent();
      if (urgent != null) {
        Instant after = (urgent.isAfter(tick) ? urgent : tick).plus(MICRO);
        if (after.isBefore(next)) {
          next = after;
        }
      }
      boolean cascade = transport.cascaded();
      if (cascade && micro < settings.maxMicroTicks()) {
        micro++;
        next = tick.plus(MICRO);
      } else if (!next.equals(tick.plus(MICRO))) {
        micro = 0;
      }
      tick = next;
    }
    world.before(end);
    return world.result(policy, end);
  }
}
