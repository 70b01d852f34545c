package io.tideline.forecaster;

import io.micrometer.core.instrument.MeterRegistry;
import io.tideline.forecaster.config.ForecastSettings;
import io.tideline.forecaster.config.ForecasterConfig;
import io.tideline.forecaster.topology.ForecastMeters;
import io.tideline.forecaster.topology.ForecastSerdes;
import io.tideline.forecaster.topology.ForecastTopology;
import io.tideline.platform.TidelineConfig;
import io.tideline.platform.intake.IntakeConfig;
import io.tideline.platform.serde.AvroSerdes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.apache.kafka.streams.Topology;

/**
 * Hands the forecast topology to Quarkus' Kafka Streams extension, which runs it with the
 * {@code kafka-streams.*} settings of application.properties (exactly-once v2, changelogged
 * stores) once the input topics exist.
 */
@ApplicationScoped
public class TopologyProducer {

  @Produces
  @Singleton // a record is final: no client proxy, so not @ApplicationScoped
  ForecastSettings settings(ForecasterConfig forecast, TidelineConfig tideline) {
    return forecast.settings(tideline.cluster(), tideline.service());
  }

  @Produces
  public Topology topology(ForecastSettings settings, AvroSerdes serdes, MeterRegistry registry,
      IntakeConfig intake) {
    return ForecastTopology.build(settings, ForecastSerdes.fromRegistry(serdes.valueSerdeConfig()),
        new ForecastMeters(registry), ForecastTopology.StoreKind.PERSISTENT, intake.bounds());
  }
}
