package io.tideline.quota.stream;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.avro.specific.SpecificRecord;

/**
 * Between the input gate and the rest: either an accepted input (its topic and original bytes) on
 * its way to the single writer, or an output record (a dead letter) with its key.
 */
final class Routed {

  final String topic;
  final byte[] bytes;
  final String outKey;
  final SpecificRecord out;

  private Routed(String topic, byte[] bytes, String outKey, SpecificRecord out) {
    this.topic = topic;
    this.bytes = bytes;
    this.outKey = outKey;
    this.out = out;
  }

  static Routed input(String topic, byte[] bytes) {
    return new Routed(topic, bytes, null, null);
  }

  static Routed out(String key, SpecificRecord out) {
    return new Routed(null, null, key, out);
  }

  boolean isInput() {
    return out == null;
  }

  /** The input packed for the repartition topic: topic length, topic, original bytes. */
  byte[] pack() {
    byte[] t = topic.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(4 + t.length + bytes.length).putInt(t.length).put(t).put(bytes)
        .array();
  }

  static Routed unpack(byte[] packed) {
    ByteBuffer b = ByteBuffer.wrap(packed);
    byte[] t = new byte[b.getInt()];
    b.get(t);
    byte[] rest = new byte[b.remaining()];
    b.get(rest);
    return input(new String(t, StandardCharsets.UTF_8), rest);
  }
}
