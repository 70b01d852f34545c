package io.tideline.quota.intake;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tideline.quota.stream.QuotaListener;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Meters of the quota service, in one place (the topology reports through {@link QuotaListener}).
 *
 * <ul>
 *   <li>{@code tideline_intake_records_total{topic, outcome}}: input records read, by outcome
 *       ({@code accepted}, {@code dead_lettered}); every input topic of the topology.
 *   <li>{@code tideline_intake_refusals_total{topic, error_class}}: dead letters by kind
 *       ({@code DESERIALIZATION}, {@code VALIDATION}).
 *   <li>{@code tideline_quota_verdicts_total{verdict}}: verdicts published, by outcome
 *       ({@code GUARANTEED}, {@code SHARED}, {@code QUEUED}, {@code REJECTED}).
 * </ul>
 */
@ApplicationScoped
public class IntakeMeters implements QuotaListener {

  private final MeterRegistry registry;

  public IntakeMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void accepted(String topic) {
    records(topic, "accepted").increment();
  }

  @Override
  public void deadLettered(String topic, String errorClass) {
    records(topic, "dead_lettered").increment();
    Counter.builder("tideline.intake.refusals")
        .description("Input records refused and dead-lettered, by kind of error")
        .tag("topic", topic).tag("error_class", errorClass)
        .register(registry).increment();
  }

  @Override
  public void verdict(String verdict) {
    Counter.builder("tideline.quota.verdicts")
        .description("Quota verdicts published, by outcome")
        .tag("verdict", verdict)
        .register(registry).increment();
  }

  private Counter records(String topic, String outcome) {
    return Counter.builder("tideline.intake.records")
        .description("Input records read from the topic, by outcome")
        .tag("topic", topic).tag("outcome", outcome)
        .register(registry);
  }
}
