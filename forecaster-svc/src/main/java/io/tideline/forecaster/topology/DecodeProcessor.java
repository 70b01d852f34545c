package io.tideline.forecaster.topology;

import io.tideline.events.DeadLetter;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.function.BiFunction;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Decodes raw input bytes with the registry deserializer and checks them, so that no record —
 * not even one that is not Avro — can stop the topology: a refused record becomes a
 * {@link DeadLetter} with the reason, the original bytes and where it came from, and the next
 * record is processed. Dead letters leave in the same Streams transaction as everything else.
 */
final class DecodeProcessor<T> implements FixedKeyProcessor<byte[], byte[], Decoded<T>> {

  static final String DESERIALIZATION = "DESERIALIZATION";
  static final String VALIDATION = "VALIDATION";

  private final Class<T> type;
  private final Deserializer<T> deserializer;
  private final BiFunction<byte[], T, String> validator;
  private final boolean tombstonesAllowed;
  private final String service;
  private final ForecastMeters meters;
  private FixedKeyProcessorContext<byte[], Decoded<T>> context;

  /**
   * @param validator returns why a decoded record is unacceptable, or null when it is fine
   * @param tombstonesAllowed whether a null value is a deletion (compacted topics) or an error
   */
  DecodeProcessor(Class<T> type, Deserializer<T> deserializer,
      BiFunction<byte[], T, String> validator, boolean tombstonesAllowed, String service,
      ForecastMeters meters) {
    this.type = type;
    this.deserializer = deserializer;
    this.validator = validator;
    this.tombstonesAllowed = tombstonesAllowed;
    this.service = service;
    this.meters = meters;
  }

  @Override
  public void init(FixedKeyProcessorContext<byte[], Decoded<T>> context) {
    this.context = context;
  }

  @Override
  public void process(FixedKeyRecord<byte[], byte[]> record) {
    String topic = context.recordMetadata().map(RecordMetadata::topic).orElse("unknown");
    // 1. A null value: a deletion where the topic is compacted, else an empty record.
    if (record.value() == null) {
      if (tombstonesAllowed) {
        String error = validator.apply(record.key(), null);
        forward(record, error == null ? Decoded.tombstoned()
            : refuse(record, topic, VALIDATION, error));
      } else {
        forward(record, refuse(record, topic, DESERIALIZATION, "empty record (null value)"));
      }
      return;
    }
    // 2. Decode through the registry.
    Object decoded;
    try {
      decoded = deserializer.deserialize(topic, record.headers(), record.value());
    } catch (RuntimeException e) {
      forward(record, refuse(record, topic, DESERIALIZATION, "not a " + type.getSimpleName()
          + " in the registry's Avro wire format: " + rootMessage(e)));
      return;
    }
    if (!type.isInstance(decoded)) {
      forward(record, refuse(record, topic, DESERIALIZATION, "expected a " + type.getSimpleName()
          + ", got " + (decoded == null ? "null" : decoded.getClass().getName())));
      return;
    }
    // 3. Check what the schema cannot say.
    T event = type.cast(decoded);
    String error = validator.apply(record.key(), event);
    forward(record, error == null ? Decoded.ok(event) : refuse(record, topic, VALIDATION, error));
  }

  private void forward(FixedKeyRecord<byte[], byte[]> record, Decoded<T> decoded) {
    context.forward(record.withValue(decoded));
  }

  private Decoded<T> refuse(FixedKeyRecord<byte[], byte[]> record, String topic,
      String errorClass, String error) {
    meters.deadLettered(topic, errorClass);
    RecordMetadata where = context.recordMetadata().orElse(null);
    return Decoded.refused(DeadLetter.newBuilder()
        .setOriginalTopic(topic)
        .setPartition(where == null ? -1 : where.partition())
        .setOffset(where == null ? -1 : where.offset())
        .setOriginalKey(record.key() == null ? null : ByteBuffer.wrap(record.key()))
        .setOriginalValue(record.value() == null ? null : ByteBuffer.wrap(record.value()))
        .setErrorClass(errorClass)
        .setError(error)
        .setService(service)
        // Event time of the original, not the wall clock: a replay writes the same letter.
        .setFailedAt(Instant.ofEpochMilli(Math.max(0, record.timestamp())))
        .build());
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
