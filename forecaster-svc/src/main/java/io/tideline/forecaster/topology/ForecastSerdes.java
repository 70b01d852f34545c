package io.tideline.forecaster.topology;

import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockTick;
import io.tideline.events.DeadLetter;
import io.tideline.events.Holiday;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeInventory;
import io.tideline.events.SlotClassMap;
import io.tideline.events.SlotForecast;
import io.tideline.platform.serde.AvroSerdes;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The Avro serdes the forecast topology reads and writes with, all on the schema registry
 * (Confluent wire format). Inputs are consumed as raw bytes and decoded in a processor with these
 * deserializers, so an undecodable record becomes a dead letter instead of a stopped stream.
 *
 * @param telemetry reads {@code gpu.telemetry}: a {@code GpuSample} as {@link SampleFacts}
 *     (only the fields the forecaster uses; {@link SampleFactsDatumProvider}), any other
 *     record as itself
 * @param ticks reads {@code cluster.clock}
 * @param holidays reads {@code forecast.holidays}
 * @param submissions reads {@code jobs.submitted}
 * @param lifecycle reads {@code jobs.lifecycle}
 * @param inventory reads {@code cluster.inventory}
 * @param reservations writes {@code capacity.reservations}
 * @param forecasts writes {@code forecast.slots}
 * @param slotMaps writes {@code forecast.slotmap}
 * @param deadLetters writes {@code <topic>.dlq}
 */
public record ForecastSerdes(
    Deserializer<Object> telemetry,
    Deserializer<ClockTick> ticks,
    Deserializer<Holiday> holidays,
    Deserializer<JobSubmitted> submissions,
    Deserializer<JobLifecycle> lifecycle,
    Deserializer<NodeInventory> inventory,
    Serializer<CapacityReservation> reservations,
    Serializer<SlotForecast> forecasts,
    Serializer<SlotClassMap> slotMaps,
    Serializer<DeadLetter> deadLetters) {

  /** Serdes configured from registry client settings ({@link AvroSerdes#serdeConfig}). */
  public static ForecastSerdes fromRegistry(Map<String, Object> serdeConfig) {
    Map<String, Object> facts = new HashMap<>(serdeConfig);
    facts.put(AvroSerdeConfig.AVRO_DATUM_PROVIDER, SampleFactsDatumProvider.class);
    return new ForecastSerdes(
        AvroSerdes.valueDeserializer(facts),
        AvroSerdes.valueDeserializer(serdeConfig),
        AvroSerdes.valueDeserializer(serdeConfig),
        AvroSerdes.valueDeserializer(serdeConfig),
        AvroSerdes.valueDeserializer(serdeConfig),
        AvroSerdes.valueDeserializer(serdeConfig),
        AvroSerdes.valueSerializer(serdeConfig),
        AvroSerdes.valueSerializer(serdeConfig),
        AvroSerdes.valueSerializer(serdeConfig),
        AvroSerdes.valueSerializer(serdeConfig));
  }

  /** A write-only serde (the topology never reads its own outputs back). */
  static <T> Serde<T> writeOnly(Serializer<T> serializer) {
    return Serdes.serdeFrom(serializer, (topic, bytes) -> {
      throw new UnsupportedOperationException("the forecaster does not read " + topic);
    });
  }
}
