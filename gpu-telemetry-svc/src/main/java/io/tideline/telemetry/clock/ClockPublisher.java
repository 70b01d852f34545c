package io.tideline.telemetry.clock;

import io.quarkus.scheduler.Scheduled;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.platform.TidelineConfig;
import io.tideline.telemetry.TelemetryConfig;
import io.tideline.telemetry.TelemetryMeters;
import io.tideline.telemetry.publish.TelemetryProducer;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Publishes cluster.clock (key cluster) so every service advances logical time without reading
 * the wall clock. In production the ticks follow the wall clock — this adapter is the one place
 * allowed to read it; when {@code tideline.telemetry.source=SIMULATOR} they follow simulated time
 * through {@link SimulatedClock#advanceTo(Instant)} and the wall-clock schedule does nothing.
 */
@ApplicationScoped
public class ClockPublisher implements SimulatedClock {

  private static final Logger LOG = Logger.getLogger(ClockPublisher.class);

  private final boolean enabled;
  private final boolean simulated;
  private final TickSequence ticks;
  private final TelemetryProducer producer;
  private final TelemetryMeters meters;

  public ClockPublisher(TidelineConfig tideline, TelemetryConfig config, TelemetryProducer producer,
      TelemetryMeters meters) {
    this.enabled = config.clock().enabled();
    this.simulated = config.source() == TelemetryConfig.SourceKind.SIMULATOR;
    this.ticks = new TickSequence(tideline.cluster(), config.clock().interval(),
        simulated ? ClockSource.SIMULATED : ClockSource.WALL);
    this.producer = producer;
    this.meters = meters;
  }

  /**
   * Every {@code clock.publish-check}: publishes the ticks whose time has passed (none most of
   * the time), so each tick goes out within that long of its own time.
   */
  @Scheduled(every = "${tideline.telemetry.clock.publish-check}",
      concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
  void wall() {
    if (!enabled || simulated) {
      return;
    }
    try {
      publish(Instant.now());
    } catch (RuntimeException e) {
      LOG.errorf(e, "clock tick not published; the next one will catch up");
    }
  }

  @Override
  public List<ClockTick> advanceTo(Instant now) {
    if (!simulated) {
      throw new IllegalStateException("the clock follows the wall clock; set "
          + "tideline.telemetry.source=SIMULATOR to drive it");
    }
    return publish(now);
  }

  private synchronized List<ClockTick> publish(Instant now) {
    List<ClockTick> due = ticks.advanceTo(now);
    producer.ticks(due);
    due.forEach(t -> meters.tick());
    return due;
  }
}
