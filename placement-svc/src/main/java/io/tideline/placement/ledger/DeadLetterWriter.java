package io.tideline.placement.ledger;

import io.tideline.events.DeadLetter;
import java.nio.ByteBuffer;
import java.time.Instant;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Builds the {@code <topic>.dlq} record for input the ledger cannot use, in the platform's
 * {@link DeadLetter} contract (same shape as {@code platform.DeadLetters}, but written by the
 * topology so it commits in the same exactly-once transaction as the input's offset).
 */
final class DeadLetterWriter {

  private final Serializer<Object> serializer;
  private final String service;

  DeadLetterWriter(Serializer<Object> serializer, String service) {
    this.serializer = serializer;
    this.service = service;
  }

  /** The serialized dead letter, addressed to {@code topic + ".dlq"}. */
  Out letter(String topic, int partition, long offset, byte[] key, byte[] value,
      String errorClass, String reason, long timestamp) {
    DeadLetter letter = DeadLetter.newBuilder()
        .setOriginalTopic(topic)
        .setPartition(partition)
        .setOffset(offset)
        .setOriginalKey(key == null ? null : ByteBuffer.wrap(key))
        .setOriginalValue(value == null ? null : ByteBuffer.wrap(value))
        .setErrorClass(errorClass)
        .setError(reason)
        .setService(service)
        // event time of the original, never the wall clock: a replay writes the same letter
        .setFailedAt(Instant.ofEpochMilli(Math.max(0, timestamp)))
        .build();
    String dlq = topic + ".dlq";
    return new Out(dlq, serializer.serialize(dlq, letter));
  }
}
