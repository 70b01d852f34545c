package io.tideline.forecaster.topology;

import io.tideline.events.LedgerInput;
import io.tideline.platform.ledger.Out;
import io.tideline.platform.serde.ContractSubjects;
import java.nio.ByteBuffer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The forecaster's internal hop: an accepted input record as its original envelope
 * ({@link LedgerInput}: topic, partition, offset, key and value bytes untouched), on the way from
 * the intake to the kernel's single task. The same envelope is what the kernel keeps in its inbox
 * store while the input waits for its tick, and what a refusal dead-letters.
 */
final class Envelopes {

  /** Marker topic of accepted envelopes in an intake's output (split off before the sinks). */
  static final String ACCEPTED = "forecaster.accepted";
  /** Topic name the envelopes are (de)serialized under on the internal repartition topics. */
  static final String INPUTS = ContractSubjects.FORECASTER_INPUTS;

  private Envelopes() {}

  /** The envelope of one input record; a tombstone's value is carried as empty bytes. */
  static LedgerInput of(String topic, int partition, long offset, byte[] key, byte[] value) {
    return LedgerInput.newBuilder().setSourceTopic(topic).setSourcePartition(partition)
        .setSourceOffset(offset).setPayload(ByteBuffer.wrap(value == null ? new byte[0] : value))
        .setSourceKey(key == null ? null : ByteBuffer.wrap(key)).build();
  }

  /** The envelope as an intake's accepted output. */
  static Out accepted(Serializer<Object> writer, LedgerInput envelope) {
    return new Out(ACCEPTED, writer.serialize(INPUTS, envelope));
  }

  /** The value bytes an envelope carries ({@code null} for a tombstone). */
  static byte[] value(LedgerInput e) {
    ByteBuffer b = e.getPayload().duplicate();
    if (!b.hasRemaining()) {
      return null;
    }
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  /** The key bytes an envelope carries, or null. */
  static byte[] key(LedgerInput e) {
    if (e.getSourceKey() == null) {
      return null;
    }
    ByteBuffer b = e.getSourceKey().duplicate();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }
}
