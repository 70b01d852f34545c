package io.tideline.forecaster.topology;

import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.events.DeadLetter;
import java.util.function.BiFunction;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Decodes raw input bytes with the registry deserializer and checks them, so that no record —
 * not even one that is not Avro — can stop the topology: a refused record becomes a
 * {@link DeadLetter} with the reason, the original bytes and where it came from.
 */
final class Decoder<T> {

  static final String DESERIALIZATION = "DESERIALIZATION";
  static final String VALIDATION = "VALIDATION";

  private final Class<T> type;
  private final String typeName;
  private final Deserializer<? super T> deserializer;
  private final BiFunction<byte[], T, String> validator;
  private final boolean tombstonesAllowed;
  private final String service;
  private final ForecastMeters meters;

  /**
   * @param validator returns why a decoded record is unacceptable, or null when it is fine
   * @param tombstonesAllowed whether a null value is a deletion (compacted topics) or an error
   */
  Decoder(Class<T> type, Deserializer<T> deserializer, BiFunction<byte[], T, String> validator,
      boolean tombstonesAllowed, String service, ForecastMeters meters) {
    this(type, type.getSimpleName(), deserializer, validator, tombstonesAllowed, service, meters);
  }

  /**
   * @param typeName the event type as errors name it, when {@code type} is a projection of it
   *     (telemetry is read as {@link SampleFacts} of a {@code GpuSample})
   */
  Decoder(Class<T> type, String typeName, Deserializer<? super T> deserializer,
      BiFunction<byte[], T, String> validator, boolean tombstonesAllowed, String service,
      ForecastMeters meters) {
    this.type = type;
    this.typeName = typeName;
    this.deserializer = deserializer;
    this.validator = validator;
    this.tombstonesAllowed = tombstonesAllowed;
    this.service = service;
    this.meters = meters;
  }

  /** Decodes one record read from {@code topic}-{@code partition} at {@code offset}. */
  Decoded<T> decode(String topic, int partition, long offset, byte[] key, byte[] value,
      Headers headers, long timestamp) {
    // 1. A null value: a deletion where the topic is compacted, else an empty record.
    if (value == null) {
      if (!tombstonesAllowed) {
        return refuse(topic, partition, offset, key, null, timestamp, DESERIALIZATION,
            "empty record (null value)");
      }
      String error = validator.apply(key, null);
      return error == null ? Decoded.tombstoned()
          : refuse(topic, partition, offset, key, null, timestamp, VALIDATION, error);
    }
    // 2. Decode through the registry.
    Object decoded;
    try {
      decoded = deserializer.deserialize(topic, headers, value);
    } catch (RuntimeException e) {
      return refuse(topic, partition, offset, key, value, timestamp, DESERIALIZATION, "not a "
          + typeName + " in the registry's Avro wire format: " + rootMessage(e));
    }
    if (!type.isInstance(decoded)) {
      return refuse(topic, partition, offset, key, value, timestamp, DESERIALIZATION,
          "expected a " + typeName + ", got "
              + (decoded == null ? "null" : decoded.getClass().getName()));
    }
    // 3. Check what the schema cannot say.
    T event = type.cast(decoded);
    String error = validator.apply(key, event);
    return error == null ? Decoded.ok(event)
        : refuse(topic, partition, offset, key, value, timestamp, VALIDATION, error);
  }

  private Decoded<T> refuse(String topic, int partition, long offset, byte[] key, byte[] value,
      long timestamp, String errorClass, String error) {
    meters.deadLettered(topic, errorClass);
    return Decoded.refused(DeadLetters.envelope(topic, partition, offset, key, value, errorClass,
        error, service, timestamp));
  }

  private static String rootMessage(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == t ? String.valueOf(t.getMessage())
        : t.getMessage() + " (caused by " + root.getClass().getSimpleName() + ": "
            + root.getMessage() + ")";
  }
}
