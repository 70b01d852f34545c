package io.tideline.forecaster.topology;

import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import io.tideline.platform.serde.AvroSerdes;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
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
 * @param records reads every other input, the internal envelopes and the store records
 * @param writer writes every output, the internal envelopes and the store records
 */
public record ForecastSerdes(
    Deserializer<Object> telemetry,
    Deserializer<Object> records,
    Serializer<Object> writer) {

  /** Serdes configured from registry client settings ({@link AvroSerdes#serdeConfig}). */
  public static ForecastSerdes fromRegistry(Map<String, Object> serdeConfig) {
    Map<String, Object> facts = new HashMap<>(serdeConfig);
    facts.put(AvroSerdeConfig.AVRO_DATUM_PROVIDER, SampleFactsDatumProvider.class);
    return new ForecastSerdes(AvroSerdes.valueDeserializer(facts),
        AvroSerdes.valueDeserializer(serdeConfig), AvroSerdes.valueSerializer(serdeConfig));
  }

  /** The serde of a state store's values: the table's Avro store record, on the registry. */
  Serde<SpecificRecord> storeValues() {
    return Serdes.serdeFrom((topic, r) -> writer.serialize(topic, r),
        (topic, bytes) -> (SpecificRecord) records.deserialize(topic, bytes));
  }
}
