package io.tideline.forecaster.topology;

import io.tideline.events.DeadLetter;

/**
 * The outcome of decoding one input record: the event, a tombstone (null value on a compacted
 * topic), or the dead letter that explains why it was refused.
 */
record Decoded<T>(T value, boolean tombstone, DeadLetter deadLetter) {

  static <T> Decoded<T> ok(T value) {
    return new Decoded<>(value, false, null);
  }

  static <T> Decoded<T> tombstoned() {
    return new Decoded<>(null, true, null);
  }

  static <T> Decoded<T> refused(DeadLetter letter) {
    return new Decoded<>(null, false, letter);
  }

  boolean refused() {
    return deadLetter != null;
  }
}
