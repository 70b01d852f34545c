package io.tideline.forecaster.topology;

import io.tideline.events.ClockTick;
import io.tideline.platform.validation.EventValidator;
import java.time.Instant;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.TimestampExtractor;

/**
 * Stream time of {@code cluster.clock} is the tick's own cluster time, not whatever timestamp
 * the producer put on the record: under the simulator the two differ, and the ticks are the only
 * clock the forecaster has. A record that does not decode, or whose time the shared input check
 * refuses (before the earliest time, or further after its record timestamp than the lead allows),
 * keeps its record timestamp and is dead-lettered by the decode step: it never moves the clock.
 */
final class ClockTimestamps implements TimestampExtractor {

  private final Deserializer<ClockTick> ticks;
  private final EventValidator validator;

  ClockTimestamps(Deserializer<ClockTick> ticks, EventValidator validator) {
    this.ticks = ticks;
    this.validator = validator;
  }

  @Override
  public long extract(ConsumerRecord<Object, Object> record, long partitionTime) {
    if (record.value() instanceof byte[] bytes) {
      try {
        Object decoded = ticks.deserialize(record.topic(), record.headers(), bytes);
        if (decoded instanceof ClockTick tick && tick.getTime() != null
            && validator.timeProblem(tick.getTime(), record.timestamp() >= 0
                ? Instant.ofEpochMilli(record.timestamp()) : null) == null) {
          return tick.getTime().toEpochMilli();
        }
      } catch (RuntimeException e) {
        // not a tick: the decode step dead-letters it with the reason
      }
    }
    return record.timestamp() >= 0 ? record.timestamp() : Math.max(0, partitionTime);
  }
}
