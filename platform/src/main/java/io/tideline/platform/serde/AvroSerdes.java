package io.tideline.platform.serde;

import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import io.apicurio.registry.resolver.config.SchemaResolverConfig;
import io.apicurio.registry.serde.config.SerdeConfig;
import io.tideline.platform.TidelineConfig;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Avro serializers and deserializers on the schema registry, writing the Confluent wire format
 * (magic byte 0, 4-byte schema id, Avro binary; no headers). Confluent's own serde jars are not
 * available to us; Apicurio's writes the same bytes, so a consumer using Confluent's deserializer
 * against the registry's Confluent-compatible API reads our topics.
 *
 * <p>Subjects follow the topic-name strategy: the value schema of topic {@code t} is {@code t-value}.
 * Schemas are registered and resolved dereferenced: self-contained, nested named types inlined,
 * so a client without reference support (Confluent's, any language) reads and writes every subject
 * as it is (ADR 0013). Every serde made here is known to {@link SchemaCaches}, which empties their
 * schema caches when the registry's identity changes.
 */
@ApplicationScoped
public class AvroSerdes {

  private final TidelineConfig config;

  public AvroSerdes(TidelineConfig config) {
    this.config = config;
  }

  /** Registry client settings for a value serde; usable as Kafka client properties too. */
  public Map<String, Object> valueSerdeConfig() {
    return serdeConfig(config.registry().url(), config.registry().autoRegister());
  }

  /** The same settings from explicit values, for tools and tests outside a Quarkus app. */
  public static Map<String, Object> serdeConfig(String registryRootUrl, boolean autoRegister) {
    Map<String, Object> c = new HashMap<>();
    c.put(SerdeConfig.REGISTRY_URL, registryRootUrl + "/apis/registry/v2");
    c.put(SerdeConfig.AUTO_REGISTER_ARTIFACT, autoRegister);
    // Without auto-register the writer's schema is looked up by its content (an anonymous read
    // on a secured registry, ADR 0027): the exact contract `schemas register` published. Not
    // "find latest": serde 3.x asks for versions/latest/meta, which Registry 2.6 answers 404.
    c.put(SerdeConfig.FIND_LATEST_ARTIFACT, false);
    c.put(AvroSerdeConfig.USE_SPECIFIC_AVRO_READER, true);
    // Self-contained schemas (nested named types inlined, no references): what `tideline schemas
    // register` publishes and what Confluent's clients can use as they are (ADR 0013).
    c.put(SchemaResolverConfig.DEREFERENCE_SCHEMA, true);
    // The class itself, not its name: a name would be loaded by the serde's class loader.
    c.put(AvroSerdeConfig.AVRO_DATUM_PROVIDER, SpecificAvroDatumProvider.class);
    return c;
  }

  /** A configured value serializer for generated Avro records. */
  public <T> Serializer<T> valueSerializer() {
    return valueSerializer(valueSerdeConfig());
  }

  /** A configured value deserializer returning generated (specific) Avro records. */
  public <T> Deserializer<T> valueDeserializer() {
    return valueDeserializer(valueSerdeConfig());
  }

  public static <T> Serializer<T> valueSerializer(Map<String, Object> serdeConfig) {
    AvroKafkaSerializer<T> s = new AvroKafkaSerializer<>();
    s.configure(serdeConfig, false);
    SchemaCaches.track(s.getSchemaResolver());
    return s;
  }

  public static <T> Deserializer<T> valueDeserializer(Map<String, Object> serdeConfig) {
    AvroKafkaDeserializer<T> d = new AvroKafkaDeserializer<>();
    d.configure(serdeConfig, false);
    SchemaCaches.track(d.getSchemaResolver());
    return d;
  }
}
