package io.tideline.platform.kernel;

import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;

/**
 * One record a kernel host asks its transport to publish: topic, key and value ({@code null} for
 * a tombstone). The service serializes it through the registry; the in-process twin hands the
 * very same record to the consumers of the topic.
 *
 * @param topic destination topic
 * @param key record key
 * @param value the record, or {@code null} for a tombstone
 */
public record HostRecord(String topic, String key, SpecificRecord value) {

  public HostRecord {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(key, "key");
  }
}
