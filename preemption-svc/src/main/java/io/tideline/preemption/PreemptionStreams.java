package io.tideline.preemption;

import io.tideline.platform.TidelineConfig;
import io.tideline.platform.intake.IntakeConfig;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.preemption.view.PreemptionTopology;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.apache.kafka.streams.Topology;

/**
 * Hands the preemption topology to Quarkus' Kafka Streams extension, which runs it with the
 * {@code kafka-streams.*} settings of {@code application.properties} (exactly_once_v2).
 */
@ApplicationScoped
public class PreemptionStreams {

  @Produces
  @Singleton
  Topology topology(TidelineConfig tideline, PreemptionSettings settings, AvroSerdes serdes,
      IntakeConfig intake) {
    return PreemptionTopology.build(settings.policy(tideline.cluster()),
        serdes.valueSerdeConfig(), intake.bounds());
  }
}
