package io.tideline.quota.stream;

import org.apache.avro.specific.SpecificRecord;

/**
 * Between the input gate and the rest: either an accepted input (its topic and original bytes) on
 * its way to the input log, or an output record (a dead letter) with its key.
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
}
