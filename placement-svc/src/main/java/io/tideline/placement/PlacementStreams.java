package io.tideline.placement;

import io.micrometer.core.instrument.MeterRegistry;
import io.tideline.placement.ledger.PlacementMeters;
import io.tideline.placement.ledger.PlacementTopology;
import io.tideline.platform.TidelineConfig;
import io.tideline.platform.intake.IntakeConfig;
import io.tideline.platform.serde.AvroSerdes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.apache.kafka.streams.Topology;

/**
 * Hands the placement topology to Quarkus' Kafka Streams extension, which runs it with the
 * {@code kafka-streams.*} settings of {@code application.properties} (exactly_once_v2).
 */
@ApplicationScoped
public class PlacementStreams {

  @Produces
  @Singleton
  PlacementMeters meters(MeterRegistry registry) {
    return new PlacementMeters(registry);
  }

  @Produces
  @Singleton
  Topology topology(TidelineConfig tideline, PlacementSettings settings, AvroSerdes serdes,
      PlacementMeters meters, IntakeConfig intake) {
    return PlacementTopology.build(settings.policy(tideline.cluster()), serdes.valueSerdeConfig(),
        meters, intake.bounds());
  }
}
