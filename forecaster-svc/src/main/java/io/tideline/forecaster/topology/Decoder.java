package io.tideline.forecaster.topology;

import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.validation.RecordIntake;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Decodes raw input bytes with a registry deserializer into the expected type, or says why not
 * (a dead letter's class and reason), so no record — not even one that is not Avro, nor one nested
 * deep enough to overflow the reader's stack — can stop the topology. Whether the decoded record
 * is usable is the platform's shared {@code EventValidator}'s to say (through the
 * {@code ForecastHost}, or {@link SampleCheck} for the telemetry projection), what it means the
 * {@code ForecastHost}'s.
 */
final class Decoder<T> {

  /** A decoded value, or the dead letter's class and reason. */
  record Result<T>(T value, String errorClass, String error) {}

  private final Class<T> type;
  private final String typeName;
  private final Deserializer<? super T> deserializer;

  /**
   * @param typeName the event type as errors name it, when {@code type} is a projection of it
   *     (telemetry is read as {@link SampleFacts} of a {@code GpuSample})
   */
  Decoder(Class<T> type, String typeName, Deserializer<? super T> deserializer) {
    this.type = type;
    this.typeName = typeName;
    this.deserializer = deserializer;
  }

  Result<T> decode(String topic, byte[] value, Headers headers) {
    if (value == null) {
      return new Result<>(null, DeadLetters.DESERIALIZATION, "empty record (null value)");
    }
    Object decoded;
    try {
      decoded = deserializer.deserialize(topic, headers, value);
    } catch (RuntimeException | StackOverflowError e) {
      return new Result<>(null, DeadLetters.DESERIALIZATION, "not a " + typeName
          + " in the registry's Avro wire format: " + RecordIntake.rootMessage(e));
    }
    if (!type.isInstance(decoded)) {
      return new Result<>(null, DeadLetters.DESERIALIZATION, "expected a " + typeName + ", got "
          + (decoded == null ? "null" : decoded.getClass().getName()));
    }
    return new Result<>(type.cast(decoded), null, null);
  }
}
