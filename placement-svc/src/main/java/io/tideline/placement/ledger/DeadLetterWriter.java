package io.tideline.placement.ledger;

import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.events.DeadLetter;
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
    DeadLetter letter = DeadLetters.envelope(topic, partition, offset, key, value, errorClass,
        reason, service, timestamp);
    String dlq = topic + ".dlq";
    return new Out(dlq, serializer.serialize(dlq, letter));
  }
}
