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
      all(stores.apply(QuotaTopology.INBOX_STORE), LedgerInput.class).forEach((id, in) ->
          inbox.put(QuotaKernelState.inboxSeq(id), input(host, avro, in)));
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

  /** A stored waiting input back as the kernel input it was. */
  static QuotaInput.Buffered input(QuotaHost host, Deserializer<Object> avro, LedgerInput in) {
    Object event = avro.deserialize(in.getSourceTopic(), payload(in));
    if (host.decode(in.getSourceTopic(), event) instanceof QuotaHost.Decoded.Input i
        && i.input() instanceof QuotaInput.Buffered b) {
      return b;
    }
    throw new IllegalStateException("a waiting input of " + in.getSourceTopic() + "@"
        + in.getSourcePartition() + "/" + in.getSourceOffset() + " no longer decodes as one");
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
