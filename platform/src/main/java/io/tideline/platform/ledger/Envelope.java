package io.tideline.platform.ledger;

import java.nio.ByteBuffer;

/**
 * An input record re-keyed to its cluster on the way to the single writer: which input it came
 * from, where it was (topic partition and offset, for dead letters), and its original Avro bytes.
 * Layout: {@code [input ordinal:1][partition:4][offset:8][original value]}.
 *
 * @param input which input topic
 * @param partition original partition
 * @param offset original offset
 * @param payload original value bytes (registry wire format)
 * @param <I> the service's input enum
 */
public record Envelope<I extends Enum<I> & InputTopic>(I input, int partition, long offset,
    byte[] payload) {

  private static final int HEADER = 1 + 4 + 8;

  /** The encoded bytes. */
  public byte[] encode() {
    return ByteBuffer.allocate(HEADER + payload.length).put((byte) input.ordinal())
        .putInt(partition).putLong(offset).put(payload).array();
  }

  /** Decodes {@link #encode()}'s bytes, the input being one of {@code inputs}. */
  public static <I extends Enum<I> & InputTopic> Envelope<I> decode(Class<I> inputs,
      byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    I input = inputs.getEnumConstants()[b.get()];
    int partition = b.getInt();
    long offset = b.getLong();
    byte[] payload = new byte[bytes.length - HEADER];
    b.get(payload);
    return new Envelope<>(input, partition, offset, payload);
  }
}
