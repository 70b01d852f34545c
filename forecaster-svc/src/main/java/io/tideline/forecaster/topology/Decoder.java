package io.tideline.forecaster.topology;

import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.events.DeadLetter;
import io.tideline.platform.validation.Clip;
import io.tideline.platform.validation.EventValidator;
import io.tideline.platform.validation.RecordIntake;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Decodes raw input bytes with the registry deserializer and checks them with the platform's
 * shared {@link EventValidator} (the rules every consumer of the topic applies, ADR 0012), so that
 * no record — not even one that is not Avro — can stop the topology: a refused record becomes a
 * {@link DeadLetter} with the reason, the original bytes and where it came from.
 */
final class Decoder<T> {

  static final String DESERIALIZATION = DeadLetters.DESERIALIZATION;
  static final String VALIDATION = DeadLetters.VALIDATION;

  /** Why a decoded event cannot be used, or null. */
  @FunctionalInterface
  interface Checker<T> {
    String problem(String topic, byte[] key, T event, long timestamp);
  }

  private final Class<T> type;
  private final String typeName;
  private final Deserializer<? super T> deserializer;
  private final EventValidator validator;
  private final Checker<T> checker;
  private final String service;
  private final ForecastMeters meters;

  /** A decoder of generated records, checked by {@code validator} as a whole. */
  Decoder(Class<T> type, Deserializer<T> deserializer, EventValidator validator, String service,
      ForecastMeters meters) {
    this(type, type.getSimpleName(), deserializer, validator, validator::problem, service,
        meters);
  }

  /**
   * @param typeName the event type as errors name it, when {@code type} is a projection of it
   *     (telemetry is read as {@link SampleFacts} of a {@code GpuSample})
   * @param checker the check of a decoded value (the validator's, field by field, for a
   *     projection)
   */
  Decoder(Class<T> type, String typeName, Deserializer<? super T> deserializer,
      EventValidator validator, Checker<T> checker, String service, ForecastMeters meters) {
    this.type = type;
    this.typeName = typeName;
    this.deserializer = deserializer;
    this.validator = validator;
    this.checker = checker;
    this.service = service;
    this.meters = meters;
  }

  /** Decodes one record read from {@code topic}-{@code partition} at {@code offset}. */
  Decoded<T> decode(String topic, int partition, long offset, byte[] key, byte[] value,
      Headers headers, long timestamp) {
    // 1. A null value: a deletion where the topic's entries are deleted so, else refused.
    if (value == null) {
      String error = validator.tombstoneProblem(topic, key);
      return error == null ? Decoded.tombstoned()
          : refuse(topic, partition, offset, key, null, timestamp,
              EventValidator.tombstonesAllowed(topic) ? VALIDATION : DESERIALIZATION, error);
    }
    // 2. Decode through the registry.
    Object decoded;
    try {
      decoded = deserializer.deserialize(topic, headers, value);
    } catch (RuntimeException | StackOverflowError e) {
      return refuse(topic, partition, offset, key, value, timestamp, DESERIALIZATION, "not a "
          + typeName + " in the registry's Avro wire format: " + RecordIntake.rootMessage(e));
    }
    if (!type.isInstance(decoded)) {
      return refuse(topic, partition, offset, key, value, timestamp, DESERIALIZATION,
          "expected a " + typeName + ", got "
              + (decoded == null ? "null" : decoded.getClass().getName()));
    }
    // 3. Check what the schema cannot say.
    T event = type.cast(decoded);
    String error;
    try {
      error = checker.problem(topic, key, event, timestamp);
    } catch (RuntimeException e) {
      error = "could not be checked: " + e;
    }
    return error == null ? Decoded.ok(event)
        : refuse(topic, partition, offset, key, value, timestamp, VALIDATION, error);
  }

  private Decoded<T> refuse(String topic, int partition, long offset, byte[] key, byte[] value,
      long timestamp, String errorClass, String error) {
    meters.deadLettered(topic, errorClass);
    return Decoded.refused(DeadLetters.envelope(topic, partition, offset, key, value, errorClass,
        Clip.reason(error, 2_000), service, timestamp));
  }
}
