package io.tideline.telemetry.collect;

import io.quarkus.scheduler.Scheduled;
import io.tideline.events.GpuSample;
import io.tideline.platform.TidelineConfig;
import io.tideline.telemetry.TelemetryConfig;
import io.tideline.telemetry.TelemetryMeters;
import io.tideline.telemetry.collect.dcgm.DcgmScrapeSource;
import io.tideline.telemetry.collect.sim.SimulatorSampleSource;
import io.tideline.telemetry.collect.smi.NvidiaSmiSource;
import io.tideline.telemetry.publish.TelemetryProducer;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The collection loop: every {@code tideline.telemetry.collect-interval} it reads the configured
 * source once, applies STALE bookkeeping, and publishes to gpu.telemetry keyed by gpuId. A failed
 * round is logged and counted; the loop never stops for bad input.
 *
 * <p>In production the round's event time is the wall clock — this adapter measures, so it may
 * read it. Under the simulator, {@link #round(Instant)} is called with simulated time.
 */
@ApplicationScoped
public class Collector {

  private static final Logger LOG = Logger.getLogger(Collector.class);

  private final SampleSource source;
  private final TelemetryProducer producer;
  private final TelemetryMeters meters;
  private final StaleTracker stale = new StaleTracker();

  public Collector(TidelineConfig tideline, TelemetryConfig config, TelemetryProducer producer,
      TelemetryMeters meters) {
    this.source = create(tideline.cluster(), config).orElse(null);
    this.producer = producer;
    this.meters = meters;
  }

  static Optional<SampleSource> create(String cluster, TelemetryConfig c) {
    return switch (c.source()) {
      case DCGM -> Optional.of(new DcgmScrapeSource(cluster,
          c.dcgm().targets().orElse(List.of()).stream().map(DcgmScrapeSource.Target::parse).toList(),
          c.dcgm().timeout(), Attributor.from(c.attribution())));
      case NVIDIA_SMI -> Optional.of(new NvidiaSmiSource(cluster,
          c.smi().nodeId().or(() -> Optional.ofNullable(System.getenv("NODE_NAME")))
              .or(() -> Optional.ofNullable(System.getenv("HOSTNAME"))).orElse("localhost"),
          c.smi().command(), c.smi().timeout()));
      case SIMULATOR -> Optional.of(new SimulatorSampleSource());
      case NONE -> Optional.empty();
    };
  }

  /** The simulator's push interface, when the simulator is the source. */
  public Optional<SimulatorSampleSource> simulator() {
    return source instanceof SimulatorSampleSource s ? Optional.of(s) : Optional.empty();
  }

  @Scheduled(every = "${tideline.telemetry.collect-interval}", delayed = "1s",
      concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
  void scheduled() {
    if (source == null || source instanceof SimulatorSampleSource) {
      return; // nothing to poll; the simulator drives its own rounds
    }
    try {
      round(Instant.now());
    } catch (RuntimeException e) {
      LOG.errorf(e, "collection round failed; retrying next interval");
    }
  }

  /** Runs one round at event time {@code now} and publishes its samples; returns them. */
  public synchronized List<GpuSample> round(Instant now) {
    if (source == null) {
      return List.of();
    }
    String kind = source.kind().name();
    // 1. read every target, 2. count, 3. turn failures into STALE samples, 4. publish.
    List<TargetReading> readings = source.collect(now);
    for (TargetReading r : readings) {
      meters.scrape(kind, r.failure().isEmpty());
      if (r.malformedLines() > 0) {
        meters.malformed(kind, r.malformedLines());
        LOG.warnf("%s: skipped %d malformed lines", r.target(), r.malformedLines());
      }
      r.failure().ifPresent(f -> LOG.warnf("%s: read failed, its GPUs are STALE: %s", r.target(), f));
    }
    List<GpuSample> out = stale.apply(readings, now);
    meters.staleGpus(stale.staleGpus()); // before publishing: a reader of the STALE samples sees it
    producer.samples(out);
    long staleCount = out.stream().filter(s -> s.getState() == io.tideline.events.SampleState.STALE).count();
    meters.published(kind, "OK", (int) (out.size() - staleCount));
    meters.published(kind, "STALE", (int) staleCount);
    return out;
  }
}
