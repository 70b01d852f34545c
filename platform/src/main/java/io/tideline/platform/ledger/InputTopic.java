package io.tideline.platform.ledger;

import java.util.ArrayList;
import java.util.List;

/**
 * One input of a single-writer topology, implemented by the service's {@code Input} enum: the
 * catalogued topic it is read from. The enum's ordinal is part of the {@link Envelope} encoding,
 * so such an enum is append only.
 */
public interface InputTopic {

  /** The catalogued topic. */
  String topic();

  /** The input of {@code inputs} read from {@code topic}, or {@code null}. */
  static <I extends Enum<I> & InputTopic> I of(Class<I> inputs, String topic) {
    for (I i : inputs.getEnumConstants()) {
      if (i.topic().equals(topic)) {
        return i;
      }
    }
    return null;
  }

  /** The topics of all {@code inputs}, in ordinal order. */
  static <I extends Enum<I> & InputTopic> List<String> topics(Class<I> inputs) {
    List<String> t = new ArrayList<>();
    for (I i : inputs.getEnumConstants()) {
      t.add(i.topic());
    }
    return t;
  }
}
