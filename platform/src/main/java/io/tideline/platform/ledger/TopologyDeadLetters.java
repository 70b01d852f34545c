package io.tideline.platform.ledger;

import io.tideline.events.DeadLetter;
import io.tideline.platform.deadletter.DeadLetters;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Builds the {@code <topic>.dlq} record for input a topology cannot use, in the platform's
 * {@link DeadLetter} contract ({@link DeadLetters#envelope}), as an {@link Out} the topology
 * itself writes, so the letter commits in the same exactly-once transaction as the input's offset.
 */
public final class TopologyDeadLetters {

  private final Serializer<Object> serializer;
  private final String service;

  /** Letters serialized with {@code serializer}, signed by {@code service}. */
  public TopologyDeadLetters(Serializer<Object> serializer, String service) {
    this.serializer = serializer;
    this.service = service;
  }

  /** The serialized dead letter, addressed to {@code topic + ".dlq"}. */
  public Out letter(String topic, int partition, long offset, byte[] key, byte[] value,
      String errorClass, String reason, long timestamp) {
    DeadLetter letter = DeadLetters.envelope(topic, partition, offset, key, value, errorClass,
        reason, service, timestamp);
    String dlq = topic + ".dlq";
    return new Out(dlq, serializer.serialize(dlq, letter));
  }
}
