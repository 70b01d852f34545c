package io.tideline.platform.ledger;

import io.tideline.events.LedgerInput;
import java.nio.ByteBuffer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The retained input log of a single-writer topology ({@code placement.ledger.inputs},
 * {@code preemption.inputs}; value {@link LedgerInput}): the exact order the writer decided in,
 * which {@code tideline audit replay} re-runs. Written through the registry like every topic.
 */
public final class InputLog {

  private InputLog() {}

  /** The envelope as the log's Avro record. */
  public static byte[] write(Serializer<Object> serializer, String logTopic, Envelope<?> e) {
    return serializer.serialize(logTopic, LedgerInput.newBuilder()
        .setSourceTopic(e.input().topic()).setSourcePartition(e.partition())
        .setSourceOffset(e.offset()).setPayload(ByteBuffer.wrap(e.payload())).build());
  }

  /**
   * A record of the log back as the envelope the writer reads. Only the intake writes the log, in
   * the same transaction: a record naming an unknown input is a bug or hand-written, and stops the
   * writer rather than being skipped (it would change every later decision).
   */
  public static <I extends Enum<I> & InputTopic> Envelope<I> read(Deserializer<Object> deserializer,
      String logTopic, Class<I> inputs, byte[] bytes) {
    LedgerInput in = (LedgerInput) deserializer.deserialize(logTopic, bytes);
    I input = InputTopic.of(inputs, in.getSourceTopic());
    if (input == null) {
      throw new IllegalStateException("the input log " + logTopic
          + " names an unknown input topic " + in.getSourceTopic());
    }
    ByteBuffer payload = in.getPayload().duplicate();
    byte[] raw = new byte[payload.remaining()];
    payload.get(raw);
    return new Envelope<>(input, in.getSourcePartition(), in.getSourceOffset(), raw);
  }
}
