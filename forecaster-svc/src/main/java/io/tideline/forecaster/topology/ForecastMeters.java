package io.tideline.forecaster.topology;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tideline.core.forecast.kernel.ForecastEffect.Count;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The forecaster's meters, in one place (Prometheus names; Kafka Streams' own metrics come on
 * top through the Quarkus Micrometer binder). The kernel's counts arrive as its tally effect.
 *
 * <ul>
 *   <li>{@code tideline_forecast_dead_letters_total{topic, error_class}}: input records refused
 *       and parked on {@code <topic>.dlq}.
 *   <li>{@code tideline_forecast_samples_total{outcome}}: GPU samples at the telemetry stage:
 *       {@code passed} on to the kernel, {@code dropped} (they could not change their GPU-minute),
 *       {@code refused} (dead-lettered).
 *   <li>{@code tideline_forecast_gpu_minutes_total{outcome}}: GPU-minutes by attribution:
 *       {@code service}, {@code job} (a job without a service: training, batch), {@code idle},
 *       {@code carried} (STALE or silent, counted for the last owner), {@code unknown} (past the
 *       carry: the owner's minute is unknown), {@code carry_ended} (the job it ran had ended),
 *       {@code unattributed} (STALE with no known owner), {@code forgotten} (a GPU silent too
 *       long).
 *   <li>{@code tideline_forecast_minutes_total{outcome}}: service-minutes {@code recorded},
 *       {@code zero} (recorded at 0: telemetry reported, no GPU was the service's),
 *       {@code skipped_unknown} (not recorded: a GPU of unknown use), and observations
 *       {@code late} (their minute was already recorded).
 *   <li>{@code tideline_forecast_reservations_total{action}}: RESERVE, RELEASE and OVER_ISSUE
 *       events published.
 *   <li>{@code tideline_forecast_ticks_total{outcome}}: clock ticks {@code processed},
 *       {@code stale} (not after the last one) or {@code other_cluster}.
 * </ul>
 */
public final class ForecastMeters {

  private final MeterRegistry registry;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();

  public ForecastMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  void deadLettered(String topic, String errorClass) {
    Counter.builder("tideline.forecast.dead.letters")
        .description("Input records refused and dead-lettered, by topic and kind of error")
        .tag("topic", topic).tag("error_class", errorClass)
        .register(registry).increment();
  }

  /** The counter of a sample outcome at the telemetry stage (the hot path keeps it). */
  Counter samples(String outcome) {
    return counter("tideline.forecast.samples", "GPU samples at the telemetry stage", "outcome",
        outcome);
  }

  void reservation(String action) {
    counter("tideline.forecast.reservations", "Reservation events published", "action", action)
        .increment();
  }

  /** The kernel's counts of one tick. */
  void tally(Map<Count, Integer> counts) {
    counts.forEach((c, n) -> {
      String name = c.name().toLowerCase(Locale.ROOT);
      if (name.startsWith("gpu_")) {
        counter("tideline.forecast.gpu.minutes", "GPU-minutes by attribution", "outcome",
            name.substring(4)).increment(n);
      } else if (name.startsWith("minute_")) {
        counter("tideline.forecast.minutes", "Service-minutes by outcome", "outcome",
            name.substring(7)).increment(n);
      } else if (c == Count.OBSERVATION_LATE) {
        counter("tideline.forecast.minutes", "Service-minutes by outcome", "outcome", "late")
            .increment(n);
      } else if (name.startsWith("tick_")) {
        counter("tideline.forecast.ticks", "Clock ticks by outcome", "outcome",
            name.substring(5)).increment(n);
      }
    });
  }

  /** The total of the counters with that tag, whatever their other tags (0 when none). */
  public double count(String name, String tag, String value) {
    return registry.find(name).tag(tag, value).counters().stream()
        .mapToDouble(Counter::count).sum();
  }

  private Counter counter(String name, String description, String tag, String value) {
    return counters.computeIfAbsent(name + "|" + value, k -> Counter.builder(name)
        .description(description).tag(tag, value).register(registry));
  }
}
