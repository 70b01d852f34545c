package io.tideline.platform.security;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Stamps every record a Tideline producer sends with {@value Provenance#HEADER} = its identity
 * (ADR 0029). One interceptor for every producer: Kafka Streams sinks get it through the
 * platform's {@code kafka-streams.producer.interceptor.classes}, plain producers through
 * {@link #configure(Map, String)}. A stamp already on the record is replaced, so a record read
 * and forwarded carries its real writer, never the one before.
 */
public final class ProducerStamp implements ProducerInterceptor<Object, Object> {

  /** The producer setting naming the identity to stamp. */
  public static final String IDENTITY = "tideline.producer.identity";

  /**
   * The prefix of a per-topic identity ({@code tideline.producer.identity.<topic>}): a tool that
   * plays several roles from one producer (the simulator is the telemetry, the executor and the
   * clock of the demo) stamps each topic's record with the role that writes it.
   */
  public static final String IDENTITY_OF_TOPIC = IDENTITY + ".";

  private byte[] identity;
  private final Map<String, byte[]> byTopic = new java.util.HashMap<>();

  /** Adds the interceptor and the identity to a plain producer's settings. */
  public static void configure(Map<String, Object> producerConfig, String identity) {
    producerConfig.put(org.apache.kafka.clients.producer.ProducerConfig.INTERCEPTOR_CLASSES_CONFIG,
        ProducerStamp.class.getName());
    producerConfig.put(IDENTITY, identity);
  }

  /**
   * As {@link #configure(Map, String)}, stamping the records of each topic of {@code byTopic}
   * with its own identity ({@code identity} for every other topic).
   */
  public static void configure(Map<String, Object> producerConfig, String identity,
      Map<String, String> byTopic) {
    configure(producerConfig, identity);
    byTopic.forEach((topic, who) -> producerConfig.put(IDENTITY_OF_TOPIC + topic, who));
  }

  /**
   * Who writes each catalogued topic when one producer plays every role it writes: {@code self}
   * where the catalogue names it a producer of the topic, else the topic's first owner
   * ({@link Provenance#ownerOf}). The simulator plays the executor, telemetry, the submitters and
   * the operators of the open demo stack; a test driver writes each input as its real producer.
   */
  public static Map<String, String> asOwners(String self) {
    Map<String, String> out = new java.util.HashMap<>();
    for (io.tideline.platform.topics.TopicSpec t
        : io.tideline.platform.topics.TopicCatalogue.all()) {
      java.util.Set<String> owners = Provenance.owners(t.name());
      if (!owners.isEmpty() && !owners.contains(self)) {
        out.put(t.name(), owners.iterator().next());
      }
    }
    return out;
  }

  /**
   * Test drivers' producers ({@code Properties} or a map): every record of a catalogued topic is
   * stamped with the topic's owner, as its real producer would stamp it (ADR 0029).
   */
  public static void configureAsOwners(Map<? super String, Object> producerConfig) {
    Map<String, Object> c = new java.util.HashMap<>();
    configure(c, "tideline-test-driver", asOwners("tideline-test-driver"));
    producerConfig.putAll(c);
  }

  /**
   * The same for a Kafka Streams engine built by hand (tools, tests): its producers stamp
   * {@code identity}, as the platform's {@code kafka-streams.producer.*} settings do for a service.
   */
  public static void configureStreams(java.util.Properties streams, String identity) {
    streams.put("producer." + org.apache.kafka.clients.producer.ProducerConfig
        .INTERCEPTOR_CLASSES_CONFIG, ProducerStamp.class.getName());
    streams.put("producer." + IDENTITY, identity);
  }

  @Override
  public void configure(Map<String, ?> configs) {
    Object id = configs.get(IDENTITY);
    if (id == null || id.toString().isBlank()) {
      throw new IllegalStateException(IDENTITY + " is not set: a Tideline producer must say who"
          + " it is (ADR 0029)");
    }
    identity = id.toString().getBytes(StandardCharsets.UTF_8);
    configs.forEach((k, v) -> {
      if (k.startsWith(IDENTITY_OF_TOPIC) && v != null && !v.toString().isBlank()) {
        byTopic.put(k.substring(IDENTITY_OF_TOPIC.length()),
            v.toString().getBytes(StandardCharsets.UTF_8));
      }
    });
  }

  @Override
  public ProducerRecord<Object, Object> onSend(ProducerRecord<Object, Object> record) {
    record.headers().remove(Provenance.HEADER);
    record.headers().add(Provenance.HEADER, byTopic.getOrDefault(record.topic(), identity));
    return record;
  }

  @Override
  public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
    // nothing to do
  }

  @Override
  public void close() {
    // nothing held
  }
}
