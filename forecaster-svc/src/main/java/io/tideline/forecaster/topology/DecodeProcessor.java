package io.tideline.forecaster.topology;

import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Decodes each raw input record with a {@link Decoder}: the event, a tombstone, or a dead letter
 * with the reason; the topology goes on with the next record either way.
 */
final class DecodeProcessor<T> implements FixedKeyProcessor<byte[], byte[], Decoded<T>> {

  private final Decoder<T> decoder;
  private FixedKeyProcessorContext<byte[], Decoded<T>> context;

  DecodeProcessor(Decoder<T> decoder) {
    this.decoder = decoder;
  }

  @Override
  public void init(FixedKeyProcessorContext<byte[], Decoded<T>> context) {
    this.context = context;
  }

  @Override
  public void process(FixedKeyRecord<byte[], byte[]> record) {
    RecordMetadata where = context.recordMetadata().orElse(null);
    context.forward(record.withValue(decoder.decode(
        where == null ? "unknown" : where.topic(), where == null ? -1 : where.partition(),
        where == null ? -1 : where.offset(), record.key(), record.value(), record.headers(),
        record.timestamp())));
  }
}
