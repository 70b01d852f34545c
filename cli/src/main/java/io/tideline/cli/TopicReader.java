package io.tideline.cli;

import io.tideline.cli.audit.LogReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads a topic from its beginning to the end offsets seen at the start, through the audit's
 * {@link LogReader} (partitions assigned directly: no consumer group, no committed offsets, no side
 * effects on anyone's consumption), and decodes each value, in timestamp order.
 */
final class TopicReader {

  /** One record, its value decoded or the reason it could not be. */
  record Entry(ConsumerRecord<byte[], byte[]> raw, String key, Object value, String error) {
    long timestamp() {
      return raw.timestamp();
    }
  }

  private TopicReader() {}

  static List<Entry> readAll(Properties client, String topic, Deserializer<Object> values) {
    List<Entry> out = new ArrayList<>();
    LogReader.read(client, topic, null).values()
        .forEach(part -> part.forEach(r -> out.add(decode(r, values))));
    out.sort((a, b) -> Long.compare(a.timestamp(), b.timestamp()));
    return out;
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
