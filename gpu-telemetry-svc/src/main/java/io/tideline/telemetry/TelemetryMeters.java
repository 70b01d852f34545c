package io.tideline.telemetry;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Meters of gpu-telemetry-svc, in one place.
 *
 * <ul>
 *   <li>{@code tideline_telemetry_samples_total{source, state}}: samples published, by collector
 *       and state ({@code OK}, {@code STALE}).
 *   <li>{@code tideline_telemetry_scrapes_total{source, outcome}}: collection rounds per target
 *       ({@code ok}, {@code failed}).
 *   <li>{@code tideline_telemetry_malformed_lines_total{source}}: exporter or CSV lines skipped
 *       because they did not parse (never fatal).
 *   <li>{@code tideline_telemetry_stale_gpus}: GPUs currently STALE.
 *   <li>{@code tideline_telemetry_inventory_changes_total{change}}: node events published.
 *   <li>{@code tideline_telemetry_clock_ticks_total}: clock ticks published.
 * </ul>
 */
@ApplicationScoped
public class TelemetryMeters {

  private final MeterRegistry registry;
  private final AtomicInteger staleGpus = new AtomicInteger();

  public TelemetryMeters(MeterRegistry registry) {
    this.registry = registry;
    // A gauge reads the object it was registered with. If a previous application in this JVM (a
    // Quarkus test restart) left one under this name in the shared global registry, registering
    // again would return that stale gauge; replace it so the gauge reads this instance.
    registry.find("tideline.telemetry.stale.gpus").gauges().forEach(registry::remove);
    Gauge.builder("tideline.telemetry.stale.gpus", staleGpus, AtomicInteger::get)
        .description("GPUs whose last collection failed (state STALE)").strongReference(true)
        .register(registry);
  }

  public void published(String source, String state, int n) {
    Counter.builder("tideline.telemetry.samples").description("Samples published")
        .tag("source", source).tag("state", state).register(registry).increment(n);
  }

  public void scrape(String source, boolean ok) {
    Counter.builder("tideline.telemetry.scrapes").description("Collection rounds per target")
        .tag("source", source).tag("outcome", ok ? "ok" : "failed").register(registry).increment();
  }

  public void malformed(String source, int n) {
    Counter.builder("tideline.telemetry.malformed.lines")
        .description("Exporter or CSV lines skipped because they did not parse")
        .tag("source", source).register(registry).increment(n);
  }

  public void staleGpus(int n) {
    staleGpus.set(n);
  }

  public void inventoryChange(String change) {
    Counter.builder("tideline.telemetry.inventory.changes").description("Node events published")
        .tag("change", change).register(registry).increment();
  }

  public void tick() {
    Counter.builder("tideline.telemetry.clock.ticks").description("Clock ticks published")
        .register(registry).increment();
  }
}
