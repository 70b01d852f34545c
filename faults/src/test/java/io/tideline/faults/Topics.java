package io.tideline.faults;

import io.tideline.platform.security.Provenance;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.events.DeadLetter;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.testkit.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/** What the suite writes to and reads from the topics: through the registry, or raw bytes. */
final class Topics implements AutoCloseable {

  private final String bootstrap;
  private final Map<String, Object> serde;
  private final KafkaProducer<byte[], byte[]> producer;
  private final Serializer<Object> avro;
  private final Deserializer<Object> decoder;
  private final java.util.concurrent.atomic.AtomicInteger failedSends =
      new java.util.concurrent.atomic.AtomicInteger();

  Topics(String bootstrap, String registry) {
    this.bootstrap = bootstrap;
    this.serde = AvroSerdes.serdeConfig(registry, true);
    this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 2_000_000),
        new ByteArraySerializer(), new ByteArraySerializer());
    this.avro = AvroSerdes.valueSerializer(serde);
    this.decoder = AvroSerdes.valueDeserializer(serde);
  }

  /** The registry wire-format bytes of {@code value} for {@code topic}. */
  byte[] bytes(String topic, Object value) {
    return avro.serialize(topic, value);
  }

  /** Writes {@code value} (Avro through the registry) and returns where it went. */
  RecordMetadata send(String topic, String key, Object value) {
    return sendRaw(topic, key == null ? null : key.getBytes(), bytes(topic, value));
  }

  /** Writes {@code value} without waiting for the broker ({@link #flush} waits for all). */
  void sendAsync(String topic, String key, Object value) {
    producer.send(new ProducerRecord<>(topic, null, key == null ? null : key.getBytes(),
        bytes(topic, value), Provenance.stampOf(Provenance.ownerOf(topic))), (m, e) -> {
          if (e != null) {
            failedSends.incrementAndGet();
          }
        });
  }

  /** Waits until everything sent is acknowledged; fails if a send failed. */
  void flush() {
    producer.flush();
    if (failedSends.get() > 0) {
      throw new AssertionError(failedSends.get() + " asynchronous send(s) failed");
    }
  }

  /** Decodes a registry-framed value of {@code topic} (null if it does not decode). */
  Object decode(String topic, byte[] value) {
    try {
      return value == null ? null : decoder.deserialize(topic, value);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** Writes raw bytes (null = a tombstone) and returns where they went. */
  RecordMetadata sendRaw(String topic, byte[] key, byte[] value) {
    try {
      // written as the topic's owner stamps it (ADR 0029): the hostile part is the record itself
      var stamp = TopicCatalogue.find(topic).isPresent()
          ? Provenance.stampOf(Provenance.ownerOf(topic)) : Provenance.stampOf(null);
      return producer.send(new ProducerRecord<>(topic, null, key, value, stamp)).get();
    } catch (Exception e) {
      throw new AssertionError("could not write to " + topic + ": " + e, e);
    }
  }

  /** Every committed record of {@code topic} up to its current end. */
  List<ConsumerRecord<byte[], byte[]>> all(String topic) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (var c = new KafkaConsumer<>(consumerConfig(), new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      List<TopicPartition> parts = c.partitionsFor(topic).stream()
          .map(i -> new TopicPartition(topic, i.partition())).toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))
          && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
    return out;
  }

  /** The decoded values of {@code topic} (undecodable records skipped). */
  <T> List<T> values(String topic, Class<T> type) {
    List<T> out = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : all(topic)) {
      try {
        Object v = r.value() == null ? null : decoder.deserialize(topic, r.value());
        if (type.isInstance(v)) {
          out.add(type.cast(v));
        }
      } catch (RuntimeException e) {
        // not ours to judge here
      }
    }
    return out;
  }

  /** Waits until {@code topic} holds a {@code type} matching {@code what}; returns them all. */
  <T> List<T> await(String topic, Class<T> type, Predicate<T> what, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      List<T> found = values(topic, type).stream().filter(what).toList();
      if (!found.isEmpty()) {
        return found;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no matching " + type.getSimpleName() + " on " + topic
            + " within " + within);
      }
      Ports.sleep(500);
    }
  }

  /** The dead letters on {@code <topic>.dlq}. */
  List<DeadLetter> letters(String topic) {
    return values(topic + ".dlq", DeadLetter.class);
  }

  /**
   * The offset {@code group} has committed on a partition (-1 if none): under exactly-once the
   * offset after the last record whose outputs are committed.
   */
  long committed(String group, String topic, int partition) {
    TopicPartition tp = new TopicPartition(topic, partition);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      OffsetAndMetadata m = admin.listConsumerGroupOffsets(group)
          .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS).get(tp);
      return m == null ? -1 : m.offset();
    } catch (Exception e) {
      return -1;
    }
  }

  /**
   * Waits until {@code group} has committed past the record at {@code at}: the service has handled
   * it and written what it produced from it.
   */
  void awaitConsumed(String group, RecordMetadata at, Duration within) {
    awaitConsumed(group, at.topic(), at.partition(), at.offset(), within);
  }

  /** {@link #awaitConsumed(String, RecordMetadata, Duration)} of the record at an offset. */
  void awaitConsumed(String group, String topic, int partition, long offset, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (committed(group, topic, partition) <= offset) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(group + " has not consumed " + topic + "-" + partition + "@"
            + offset + " within " + within + " (committed " + committed(group, topic, partition)
            + ")");
      }
      Ports.sleep(500);
    }
  }

  private Map<String, Object> consumerConfig() {
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("faults-reader"));
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4_000_000);
    return c;
  }

  @Override
  public void close() {
    producer.close();
  }
}
