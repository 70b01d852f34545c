package io.tideline.forecaster.topology;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The forecaster's meters, in one place (Prometheus names; Kafka Streams' own metrics come on
 * top through the Quarkus Micrometer binder).
 *
 * <ul>
 *   <li>{@code tideline_forecast_dead_letters_total{topic, error_class}}: input records refused
 *       and parked on {@code <topic>.dlq}.
 *   <li>{@code tideline_forecast_samples_total{outcome}}: GPU samples by what they did:
 *       {@code counted} (an OK sample counted a GPU for a service in a minute), {@code job} (an OK sample
 *       counted a GPU for a job without a service: training, batch), {@code idle},
 *       {@code carried} (a STALE sample counted for the GPU's last service), {@code unknown} (a
 *       STALE sample past the carry window made the minute unknown), {@code repeat} (the GPU
 *       was already counted in that minute), {@code late} (its minute was already closed),
 *       {@code unattributed} (a STALE sample of a GPU with no known owner).
 *   <li>{@code tideline_forecast_minutes_total{outcome}}: service-minutes {@code recorded} into
 *       the slot history, {@code skipped_unknown} (a stale GPU made the count unreliable), or
 *       {@code late} (arrived after the minute was recorded).
 *   <li>{@code tideline_forecast_reservations_total{action}}: RESERVE, RELEASE and OVER_ISSUE
 *       events published.
 *   <li>{@code tideline_forecast_ticks_total{outcome}}: clock ticks {@code processed},
 *       {@code stale} (not after the last one) or {@code other_cluster}.
 * </ul>
 */
public final class ForecastMeters {

  static final String COUNTED = "counted";
  static final String JOB = "job";
  static final String IDLE = "idle";
  static final String CARRIED = "carried";
  static final String UNKNOWN = "unknown";
  static final String REPEAT = "repeat";
  static final String LATE = "late";
  static final String UNATTRIBUTED = "unattributed";

  private final MeterRegistry registry;
  // Per-sample meters are looked up once: a registry lookup per sample costs throughput.
  private final java.util.Map<String, Counter> samples = new java.util.concurrent.ConcurrentHashMap<>();

  public ForecastMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  void deadLettered(String topic, String errorClass) {
    Counter.builder("tideline.forecast.dead.letters")
        .description("Input records refused and dead-lettered, by topic and kind of error")
        .tag("topic", topic).tag("error_class", errorClass)
        .register(registry).increment();
  }

  void sample(String outcome) {
    samples.computeIfAbsent(outcome, o -> counter("tideline.forecast.samples",
        "GPU samples by outcome", "outcome", o)).increment();
  }

  void minute(String outcome) {
    counter("tideline.forecast.minutes", "Service-minutes by outcome", "outcome", outcome)
        .increment();
  }

  void reservation(String action) {
    counter("tideline.forecast.reservations", "Reservation events published", "action", action)
        .increment();
  }

  void tick(String outcome) {
    counter("tideline.forecast.ticks", "Clock ticks by outcome", "outcome", outcome).increment();
  }

  /** The total of the counters with that tag, whatever their other tags (0 when none). */
  public double count(String name, String tag, String value) {
    return registry.find(name).tag(tag, value).counters().stream()
        .mapToDouble(Counter::count).sum();
  }

  private Counter counter(String name, String description, String tag, String value) {
    return Counter.builder(name).description(description).tag(tag, value).register(registry);
  }
}
