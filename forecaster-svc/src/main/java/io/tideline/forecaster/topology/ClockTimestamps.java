package io.tideline.forecaster.topology;

import io.tideline.events.ClockTick;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.TimestampExtractor;

/**
 * Stream time of {@code cluster.clock} is the tick's own cluster time, not whatever timestamp
 * the producer put on the record: under the simulator the two differ, and the ticks are the only
 * clock the forecaster has. A record that does not decode keeps its record timestamp and is
 * dead-lettered by the decode step.
 */
final class ClockTimestamps implements TimestampExtractor {

  private final Deserializer<ClockTick> ticks;

  ClockTimestamps(Deserializer<ClockTick> ticks) {
    this.ticks = ticks;
  }

  @Override
  public long extract(ConsumerRecord<Object, Object> record, long partitionTime) {
    if (record.value() instanceof byte[] bytes) {
      try {
        Object decoded = ticks.deserialize(record.topic(), record.headers(), bytes);
        if (decoded instanceof ClockTick tick && tick.getTime() != null) {
          return tick.getTime().toEpochMilli();
        }
      } catch (RuntimeException e) {
        // not a tick: the decode step dead-letters it with the reason
      }
    }
    return record.timestamp() >= 0 ? record.timestamp() : Math.max(0, partitionTime);
  }
}
