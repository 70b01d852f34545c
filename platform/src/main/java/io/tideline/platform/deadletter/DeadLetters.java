package io.tideline.platform.deadletter;

import io.tideline.platform.security.ProducerStamp;
import io.smallrye.common.annotation.Identifier;
import io.tideline.events.DeadLetter;
import io.tideline.platform.TidelineConfig;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.validation.Clip;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Parks a record a service cannot accept on {@code <topic>.dlq}, whole (original key and value
 * bytes, topic, partition, offset) with the reason, so bad input costs nothing but a dead letter:
 * the service keeps consuming and an operator can fix and replay it.
 *
 * <p>{@link #park} returns only when the broker has the dead letter; callers acknowledge the
 * original afterwards, so nothing is lost between the two.
 */
@ApplicationScoped
public class DeadLetters {

  /** Kinds of refusal, as written in {@link DeadLetter#getErrorClass()}. */
  public static final String DESERIALIZATION = "DESERIALIZATION";
  public static final String VALIDATION = "VALIDATION";
  /**
   * A record of a guarded decision topic whose {@code tideline-producer} stamp is missing or names
   * someone the catalogue does not list as the topic's producer (ADR 0029).
   */
  public static final String PROVENANCE = "PROVENANCE";

  /** Longest reason a letter carries, in characters. */
  static final int MAX_REASON = 4_000;
  /**
   * Largest original key plus value copied into a letter, in bytes: below the broker's default
   * {@code max.message.bytes} (1 MiB) with room for the envelope.
   */
  static final int MAX_ORIGINAL_BYTES = 900_000;

  private final TidelineConfig config;
  private final KafkaProducer<byte[], DeadLetter> producer;

  public DeadLetters(TidelineConfig config, AvroSerdes serdes,
      @Identifier("default-kafka-broker") Map<String, Object> kafka) {
    this.config = config;
    Map<String, Object> p = new HashMap<>(kafka);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, config.service() + "-dead-letters");
    ProducerStamp.configure(p, config.service()); // its letters carry their writer (ADR 0029)
    this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), serdes.valueSerializer());
  }

  /**
   * Writes the dead letter for {@code record} and waits for the broker's acknowledgement.
   *
   * @return where the dead letter was written
   */
  public RecordMetadata park(ConsumerRecord<byte[], byte[]> record, String errorClass, String error) {
    DeadLetter letter = envelope(record.topic(), record.partition(), record.offset(), record.key(),
        record.value(), errorClass, error, config.service(), record.timestamp());
    try {
      return producer.send(new ProducerRecord<>(record.topic() + ".dlq", record.key(), letter))
          .get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while dead-lettering " + where(record), e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("could not dead-letter " + where(record) + ": " + e, e);
    }
  }

  /**
   * The one shape of a dead letter, for this producer and for Kafka Streams topologies that write
   * theirs inside their own transaction: the original bytes untouched, where they came from, why
   * they were refused, and the original's event time (never the wall clock: a replay writes the
   * same letter).
   */
  public static DeadLetter envelope(String topic, int partition, long offset, byte[] key,
      byte[] value, String errorClass, String error, String service, long timestamp) {
    String reason = Clip.reason(error, MAX_REASON);
    // A letter must fit where its record fitted: past the broker's default message size, the
    // original bytes stay where they are (topic, partition and offset say where) and the reason
    // says so, rather than a letter too large to write stopping the service.
    int size = (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
    if (size > MAX_ORIGINAL_BYTES) {
      reason = reason + " [original key and value (" + size + " bytes) not copied: read them at "
          + topic + "-" + partition + "@" + offset + "]";
      key = null;
      value = null;
    }
    return DeadLetter.newBuilder()
        .setOriginalTopic(topic)
        .setPartition(partition)
        .setOffset(offset)
        .setOriginalKey(key == null ? null : ByteBuffer.wrap(key))
        .setOriginalValue(value == null ? null : ByteBuffer.wrap(value))
        .setErrorClass(errorClass)
        .setError(reason)
        .setService(service)
        .setFailedAt(Instant.ofEpochMilli(Math.max(0, timestamp)))
        .build();
  }

  private static String where(ConsumerRecord<?, ?> r) {
    return r.topic() + "-" + r.partition() + "@" + r.offset();
  }

  @PreDestroy
  void close() {
    producer.close();
  }
}
