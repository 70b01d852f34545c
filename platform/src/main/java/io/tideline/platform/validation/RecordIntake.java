package io.tideline.platform.validation;

import io.tideline.platform.deadletter.DeadLetters;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Turns the raw bytes of one record into a usable event, a deletion, or a refusal with its kind
 * and reason: decoding through the registry (a frame that is not our Avro wire format is a
 * {@code DESERIALIZATION} refusal), then the shared {@link EventValidator} (a {@code VALIDATION}
 * refusal). Nothing it is given can make it throw: every consumer of every topic — the Streams
 * intakes, the notifier, the CLI — reads its input through this one path.
 */
public final class RecordIntake {

  /** The outcome for one record. */
  public sealed interface Outcome permits Accepted, Tombstone, Refused {}

  /** A decoded, checked event. */
  public record Accepted(Object event) implements Outcome {}

  /** A null value on a topic where it deletes its key's entry. */
  public record Tombstone() implements Outcome {}

  /** A refused record: {@code DESERIALIZATION} or {@code VALIDATION}, and why in words. */
  public record Refused(String errorClass, String reason) implements Outcome {}

  /** Longest reason written into a dead letter. */
  static final int MAX_REASON = 2_000;

  private final Deserializer<?> deserializer;
  private final EventValidator validator;

  public RecordIntake(Deserializer<?> deserializer, EventValidator validator) {
    this.deserializer = deserializer;
    this.validator = validator;
  }

  /** The validator in use. */
  public EventValidator validator() {
    return validator;
  }

  /**
   * Reads one record of {@code topic} that must carry a {@code expected} (or, for a tombstone
   * topic, nothing).
   *
   * @param timestamp the record's Kafka timestamp (negative when unknown)
   */
  public Outcome read(String topic, byte[] key, byte[] value, long timestamp, Class<?> expected) {
    if (value == null) {
      String p = validator.tombstoneProblem(topic, key);
      return p == null ? new Tombstone()
          : new Refused(EventValidator.tombstonesAllowed(topic) ? DeadLetters.VALIDATION
              : DeadLetters.DESERIALIZATION, p);
    }
    Object decoded;
    try {
      decoded = deserializer.deserialize(topic, value);
    } catch (RuntimeException | StackOverflowError e) {
      return new Refused(DeadLetters.DESERIALIZATION, Clip.reason("not a "
          + expected.getSimpleName() + " in the registry's Avro wire format: " + rootMessage(e),
          MAX_REASON));
    }
    if (decoded == null || !expected.isInstance(decoded)) {
      return new Refused(DeadLetters.DESERIALIZATION, "expected a " + expected.getSimpleName()
          + ", got " + (decoded == null ? "null" : decoded.getClass().getName()));
    }
    try {
      String p = validator.problem(topic, key, decoded, timestamp);
      return p == null ? new Accepted(decoded)
          : new Refused(DeadLetters.VALIDATION, Clip.reason(p, MAX_REASON));
    } catch (RuntimeException e) {
      return new Refused(DeadLetters.VALIDATION,
          Clip.reason("could not be checked: " + e, MAX_REASON));
    }
  }

  /** The message of {@code t} and of its root cause. */
  public static String rootMessage(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == t ? String.valueOf(t.getMessage())
        : t.getMessage() + " (caused by " + root.getClass().getSimpleName() + ": "
            + root.getMessage() + ")";
  }
}
