package io.tideline.quota.intake;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Meters of the job intake, in one place.
 *
 * <ul>
 *   <li>{@code tideline_intake_records_total{topic, outcome}}: records read, by outcome
 *       ({@code accepted}, {@code dead_lettered}).
 *   <li>{@code tideline_intake_refusals_total{topic, error_class}}: dead letters by kind
 *       ({@code DESERIALIZATION}, {@code VALIDATION}).
 * </ul>
 */
@ApplicationScoped
public class IntakeMeters {

  private final MeterRegistry registry;

  public IntakeMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  void accepted(String topic) {
    records(topic, "accepted").increment();
  }

  void deadLettered(String topic, String errorClass) {
    records(topic, "dead_lettered").increment();
    Counter.builder("tideline.intake.refusals")
        .description("Submissions refused and dead-lettered, by kind of error")
        .tag("topic", topic).tag("error_class", errorClass)
        .register(registry).increment();
  }

  private Counter records(String topic, String outcome) {
    return Counter.builder("tideline.intake.records")
        .description("Submissions read from the topic, by outcome")
        .tag("topic", topic).tag("outcome", outcome)
        .register(registry);
  }
}
