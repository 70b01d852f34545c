package io.tideline.preemption.view;

import java.nio.ByteBuffer;

/**
 * An input record re-keyed to its cluster on the way to the view: which input it came from, where
 * it was (for dead letters) and its original Avro bytes. Layout:
 * {@code [input ordinal:1][partition:4][offset:8][original value]} (placement's layout).
 *
 * @param input which input topic
 * @param partition original partition
 * @param offset original offset
 * @param payload original value bytes (registry wire format)
 */
record Envelope(Input input, int partition, long offset, byte[] payload) {

  private static final int HEADER = 1 + 4 + 8;

  byte[] encode() {
    return ByteBuffer.allocate(HEADER + payload.length).put((byte) input.ordinal())
        .putInt(partition).putLong(offset).put(payload).array();
  }

  static Envelope decode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    Input input = Input.values()[b.get()];
    int partition = b.getInt();
    long offset = b.getLong();
    byte[] payload = new byte[bytes.length - HEADER];
    b.get(payload);
    return new Envelope(input, partition, offset, payload);
  }
}
