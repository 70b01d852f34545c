package io.tideline.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads a topic from its beginning to the end offsets seen at the start, by assigning partitions
 * directly: no consumer group, no committed offsets, no side effects on anyone's consumption.
 */
final class TopicReader {

  /** One record, its value decoded or the reason it could not be. */
  record Entry(ConsumerRecord<byte[], byte[]> raw, String key, Object value, String error) {
    long timestamp() {
      return raw.timestamp();
    }
  }

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private TopicReader() {}

  static List<Entry> readAll(Properties client, String topic, Deserializer<Object> values) {
    Properties p = new Properties();
    p.putAll(client);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.remove(ConsumerConfig.GROUP_ID_CONFIG);
    List<Entry> out = new ArrayList<>();
    try (var consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      var infos = consumer.partitionsFor(topic, TIMEOUT);
      if (infos == null || infos.isEmpty()) {
        throw new IllegalArgumentException("topic " + topic + " does not exist");
      }
      List<TopicPartition> parts = infos.stream()
          .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts, TIMEOUT);
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (!reached(consumer, end)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not read " + topic + " to its end within " + TIMEOUT);
        }
        for (var r : consumer.poll(Duration.ofMillis(200))) {
          out.add(decode(r, values));
        }
      }
    }
    out.sort((a, b) -> Long.compare(a.timestamp(), b.timestamp()));
    return out;
  }

  private static boolean reached(KafkaConsumer<?, ?> c, Map<TopicPartition, Long> end) {
    for (var e : end.entrySet()) {
      if (c.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  static Entry decode(ConsumerRecord<byte[], byte[]> r, Deserializer<Object> values) {
    String key = r.key() == null ? null : new String(r.key(), java.nio.charset.StandardCharsets.UTF_8);
    if (r.value() == null) {
      return new Entry(r, key, null, null);
    }
    try {
      return new Entry(r, key, values.deserialize(r.topic(), r.value()), null);
    } catch (RuntimeException e) {
      return new Entry(r, key, null, String.valueOf(e.getMessage()));
    }
  }
}
