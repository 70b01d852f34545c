package io.tideline.cli.audit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a topic's raw records partition by partition, in offset order, up to the end offsets seen
 * when it starts. It assigns partitions itself: no consumer group, no committed offsets, nothing
 * written — an audit leaves no trace on the cluster it reads. Only committed records are read.
 */
public final class LogReader {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private LogReader() {}

  /** Every record of {@code topic} from {@code since} (by timestamp offsets; null: the beginning). */
  public static Map<Integer, List<ConsumerRecord<byte[], byte[]>>> read(Properties client,
      String topic, Instant since) {
    Properties p = new Properties();
    p.putAll(client);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.remove(ConsumerConfig.GROUP_ID_CONFIG);
    Map<Integer, List<ConsumerRecord<byte[], byte[]>>> out = new HashMap<>();
    try (var consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      var infos = consumer.partitionsFor(topic, TIMEOUT);
      if (infos == null || infos.isEmpty()) {
        throw new IllegalArgumentException("topic " + topic + " does not exist");
      }
      List<TopicPartition> parts = infos.stream()
          .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
      consumer.assign(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts, TIMEOUT);
      // 1. start at the beginning, or at the first offset stamped at or after `since`
      consumer.seekToBeginning(parts);
      if (since != null) {
        Map<TopicPartition, Long> query = new HashMap<>();
        parts.forEach(tp -> query.put(tp, since.toEpochMilli()));
        Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query, TIMEOUT);
        for (TopicPartition tp : parts) {
          OffsetAndTimestamp o = found.get(tp);
          consumer.seek(tp, o == null ? end.get(tp) : o.offset());
        }
      }
      parts.forEach(tp -> out.put(tp.partition(), new ArrayList<>()));
      // 2. read every partition to the end offset it had when we started
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (!reached(consumer, end)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not read " + topic + " to its end within " + TIMEOUT);
        }
        for (var r : consumer.poll(Duration.ofMillis(200))) {
          if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
            out.get(r.partition()).add(r);
          }
        }
      }
    }
    return out;
  }

  /** The end offsets of {@code topics} (what a replay must leave unchanged). */
  public static Map<TopicPartition, Long> endOffsets(Properties client, List<String> topics) {
    Properties p = new Properties();
    p.putAll(client);
    p.remove(ConsumerConfig.GROUP_ID_CONFIG);
    try (var consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (String t : topics) {
        consumer.partitionsFor(t, TIMEOUT)
            .forEach(i -> parts.add(new TopicPartition(i.topic(), i.partition())));
      }
      return new HashMap<>(consumer.endOffsets(parts, TIMEOUT));
    }
  }

  /** The first offset still held per partition of {@code topic} (above 0: retention deleted some). */
  public static Map<Integer, Long> beginningOffsets(Properties client, String topic) {
    Properties p = new Properties();
    p.putAll(client);
    p.remove(ConsumerConfig.GROUP_ID_CONFIG);
    try (var consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = consumer.partitionsFor(topic, TIMEOUT).stream()
          .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
      Map<Integer, Long> out = new HashMap<>();
      consumer.beginningOffsets(parts, TIMEOUT).forEach((tp, o) -> out.put(tp.partition(), o));
      return out;
    }
  }

  private static boolean reached(KafkaConsumer<?, ?> c, Map<TopicPartition, Long> end) {
    for (var e : end.entrySet()) {
      if (c.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }
}
