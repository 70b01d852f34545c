package io.tideline.quota.stream;

import io.tideline.core.quota.kernel.QuotaInput;
import io.tideline.core.quota.kernel.QuotaKernelState;
import io.tideline.events.LedgerInput;
import io.tideline.platform.kernel.StoreRecords;
import io.tideline.platform.kernel.quota.QuotaHost;
import io.tideline.platform.kernel.quota.QuotaStore;
import io.tideline.state.BillingDayRecord;
import io.tideline.state.JobSamplesRecord;
import io.tideline.state.PendingReclaimRecord;
import io.tideline.state.QueueHistoryRecord;
import io.tideline.state.QuotaClockRecord;
import io.tideline.state.QuotaDefinitionRecord;
import io.tideline.state.QuotaJobRecord;
import io.tideline.state.ServicePeakRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads the quota kernel's state back from the service's stores (one per kernel table, values
 * typed Avro records): the writer on start-up and after a rebalance, the REST queries on demand.
 */
public final class QuotaStores {

  private QuotaStores() {}

  /**
   * The kernel state the stores hold.
   *
   * @param stores the store of each name ({@link QuotaTopology#ALL_STORES})
   * @param avro the registry deserializer: the inbox holds the inputs' original bytes
   * @param full whether to read the samples and decode the waiting inputs too (the writer must;
   *     a query for views need not, and passes no deserializer)
   */
  public static QuotaKernelState read(QuotaHost host,
      Function<String, ReadOnlyKeyValueStore<String, byte[]>> stores, Deserializer<Object> avro,
      boolean full) {
    ReadOnlyKeyValueStore<String, byte[]> meta = stores.apply(QuotaTopology.STATE_STORE);
    byte[] def = meta.get(QuotaKernelState.DEFINITION);
    byte[] clock = meta.get(QuotaKernelState.CLOCK);
    Map<Long, QuotaInput.Buffered> inbox = new TreeMap<>();
    if (full) {
      all(stores.apply(QuotaTopology.INBOX_STORE), LedgerInput.class).forEach((id, in) -> {
        if (isReference(in)) {
          return; // a GPU of a batch: its inputs come from the batch's first entry
        }
        long seq = QuotaKernelState.inboxSeq(id);
        for (QuotaInput.Buffered b : inputs(host, avro, in)) {
          inbox.put(seq++, b);
        }
      });
    }
    return host.restore(new QuotaStore.Stored(
        def == null ? null : StoreRecords.decode(QuotaDefinitionRecord.class, def),
        clock == null ? null : StoreRecords.decode(QuotaClockRecord.class, clock),
        all(stores.apply(QuotaTopology.JOBS_STORE), QuotaJobRecord.class),
        full ? all(stores.apply(QuotaTopology.SAMPLES_STORE), JobSamplesRecord.class)
            : Map.of(),
        all(stores.apply(QuotaTopology.BILLING_STORE), BillingDayRecord.class),
        all(stores.apply(QuotaTopology.HISTORY_STORE), QueueHistoryRecord.class),
        all(stores.apply(QuotaTopology.PEAKS_STORE), ServicePeakRecord.class),
        all(stores.apply(QuotaTopology.RECLAIMS_STORE), PendingReclaimRecord.class),
        inbox));
  }

  /**
   * A stored waiting input back as the kernel inputs it was: one, or a batch's usable GPUs in
   * order (ADR 0040: the batch is stored once, under its first GPU's sequence, and its GPUs waited
   * at the sequences that follow; they share one event time, so they wait and drain together).
   */
  static List<QuotaInput.Buffered> inputs(QuotaHost host, Deserializer<Object> avro,
      LedgerInput in) {
    Object event = avro.deserialize(in.getSourceTopic(), payload(in));
    List<QuotaInput.Buffered> out = new ArrayList<>();
    for (QuotaInput i : QuotaHost.inputs(host.decode(in.getSourceTopic(), event))) {
      if (!(i instanceof QuotaInput.Buffered b)) {
        out.clear();
        break;
      }
      out.add(b);
    }
    if (out.isEmpty()) {
      throw new IllegalStateException("a waiting input of " + in.getSourceTopic() + "@"
          + in.getSourcePartition() + "/" + in.getSourceOffset() + " no longer decodes as one");
    }
    return out;
  }

  /**
   * What the inbox keeps under the sequence of a batch's second and later GPUs: where the batch
   * is (topic, partition, offset), without its payload, which its first GPU's entry holds.
   */
  static LedgerInput reference(LedgerInput batch) {
    return LedgerInput.newBuilder(batch).setPayload(ByteBuffer.allocate(0)).setSourceKey(null)
        .build();
  }

  static boolean isReference(LedgerInput in) {
    return !in.getPayload().hasRemaining();
  }

  /**
   * The envelope of the waiting input at {@code seq}: for a reference, the batch it points back
   * to (the nearest earlier entry with a payload), so its dead letter carries the batch.
   */
  static LedgerInput stored(ReadOnlyKeyValueStore<String, byte[]> inbox, long seq) {
    for (long s = seq; s >= 0; s--) {
      byte[] raw = inbox.get(QuotaKernelState.inboxId(s));
      if (raw == null) {
        break;
      }
      LedgerInput in = StoreRecords.decode(LedgerInput.class, raw);
      if (!isReference(in)) {
        return in;
      }
    }
    return StoreRecords.decode(LedgerInput.class, inbox.get(QuotaKernelState.inboxId(seq)));
  }

  static byte[] payload(LedgerInput in) {
    ByteBuffer b = in.getPayload().duplicate();
    byte[] raw = new byte[b.remaining()];
    b.get(raw);
    return raw;
  }

  static <T extends SpecificRecord> Map<String, T> all(ReadOnlyKeyValueStore<String, byte[]> store,
      Class<T> type) {
    Map<String, T> out = new TreeMap<>();
    try (var it = store.all()) {
      it.forEachRemaining(kv -> out.put(kv.key, StoreRecords.decode(type, kv.value)));
    }
    return out;
  }
}
