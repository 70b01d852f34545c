package io.tideline.platform.ledger;

import io.tideline.events.LedgerInput;
import io.tideline.platform.kernel.HostRecord;
import io.tideline.platform.kernel.HostResult;
import io.tideline.platform.kernel.InboxStore;
import io.tideline.platform.kernel.KernelHost;
import io.tideline.platform.kernel.StoreCodec;
import io.tideline.platform.kernel.StoreOp;
import io.tideline.state.StoredInboxEntry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.jboss.logging.Logger;

/**
 * Second stage of a single-writer topology: the kernel of each cluster behind its
 * {@link KernelHost}, fed from the retained input log. Records arrive keyed by cluster, so one
 * task owns a cluster and offers its inputs in the log's order. For each record: decode, step,
 * then write the step's store entries (typed records, {@code cluster|table|id}) and forward its
 * records; a record whose step fails changes nothing (kernel states are immutable: the previous
 * one stays) and is dead-lettered with the reason, as is every input the kernel refused. With
 * {@code exactly_once_v2} the store's changelog, the outputs and the input offsets commit
 * together, and {@link #init} restores exactly the committed state. Placement's ledger and
 * preemption's view are this processor with their hosts.
 *
 * @param <I> the service's input enum
 * @param <S> the kernel's state
 */
public class KernelProcessor<I extends Enum<I> & InputTopic, S>
    implements Processor<byte[], byte[], byte[], Out> {

  private static final Logger LOG = Logger.getLogger(KernelProcessor.class);

  /** Told of each step and each refusal (meters, the service's extra stores). */
  public interface Listener<S> {
    /** One record was stepped; {@code tick}: it was a clock tick. */
    default void stepped(String cluster, HostResult<S> result, boolean tick) { }

    /** A published record, as serialized. */
    default void published(HostRecord record, byte[] bytes) { }

    /** A record of {@code topic} was dead-lettered. */
    default void deadLettered(String topic, String errorClass) { }
  }

  private final KernelHost.Stored<S> host;
  private final Class<I> inputs;
  private final I clock;
  private final String storeName;
  private final Serializer<Object> serializer;
  private final Deserializer<Object> deserializer;
  private final Listener<S> listener;
  private ProcessorContext<byte[], Out> context;
  private KeyValueStore<String, byte[]> store;
  private TopologyDeadLetters letters;
  private final Map<String, S> states = new HashMap<>();

  public KernelProcessor(KernelHost.Stored<S> host, Class<I> inputs, I clock, String storeName,
      Serializer<Object> serializer, Deserializer<Object> deserializer, Listener<S> listener) {
    this.host = host;
    this.inputs = inputs;
    this.clock = clock;
    this.storeName = storeName;
    this.serializer = serializer;
    this.deserializer = deserializer;
    this.listener = listener;
  }

  /** The state store this processor keeps. */
  protected KeyValueStore<String, byte[]> store() {
    return store;
  }

  protected ProcessorContext<byte[], Out> context() {
    return context;
  }

  @Override
  public void init(ProcessorContext<byte[], Out> context) {
    this.context = context;
    this.store = context.getStateStore(storeName);
    this.letters = new TopologyDeadLetters(serializer, context.applicationId());
    states.clear();
    Map<String, Map<String, Map<String, SpecificRecord>>> byCluster = new HashMap<>();
    try (KeyValueIterator<String, byte[]> it = store.all()) {
      while (it.hasNext()) {
        KeyValue<String, byte[]> kv = it.next();
        Key k = Key.parse(kv.key);
        byCluster.computeIfAbsent(k.cluster, c -> new HashMap<>())
            .computeIfAbsent(k.table, t -> new HashMap<>()).put(k.id, decode(k.table, kv.value));
      }
    }
    byCluster.forEach((cluster, tables) -> states.put(cluster, host.restore(tables,
        (topic, bytes) -> (SpecificRecord) deserializer.deserialize(topic, bytes))));
    if (!byCluster.isEmpty()) {
      LOG.infof("%s: restored the state of %s from the store", storeName, byCluster.keySet());
    }
  }

  private SpecificRecord decode(String table, byte[] bytes) {
    Class<? extends SpecificRecord> type = host.storeTypes().get(table);
    if (type == null) {
      throw new IllegalStateException(storeName + ": unknown store table " + table);
    }
    return StoreCodec.decode(type, bytes);
  }

  /** A store key {@code cluster|table|id} (cluster and table never contain '|'; ids may). */
  private record Key(String cluster, String table, String id) {
    static Key parse(String key) {
      int a = key.indexOf('|');
      int b = key.indexOf('|', a + 1);
      return new Key(key.substring(0, a), key.substring(a + 1, b), key.substring(b + 1));
    }

    String text() {
      return cluster + "|" + table + "|" + id;
    }
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    String cluster = new String(record.key(), StandardCharsets.UTF_8);
    Envelope<I> env = Envelope.decode(inputs, record.value());
    S state = states.getOrDefault(cluster, host.empty());
    String topic = env.input().topic();
    LedgerInput arrived = LedgerInput.newBuilder().setSourceTopic(topic)
        .setSourcePartition(env.partition()).setSourceOffset(env.offset())
        .setPayload(ByteBuffer.wrap(env.payload())).build();
    HostResult<S> r;
    try {
      SpecificRecord event = (SpecificRecord) deserializer.deserialize(topic, env.payload());
      r = host.offer(host.clock(state), state, topic, event, arrived);
    } catch (RuntimeException e) {
      // nothing of this record reached the store or a topic: the previous state stays
      LOG.warnf(e, "cluster %s: %s record %d@%d refused", cluster, topic, env.partition(),
          env.offset());
      deadLetter(record, arrived, "PROCESSING", String.valueOf(e.getMessage()));
      return;
    }
    // refused inputs: an input applied from the inbox is read back from the store
    for (HostResult.Refusal x : r.refused()) {
      LedgerInput in = arrived;
      if (x.inboxSeq() >= 0) {
        byte[] stored = store.get(new Key(cluster, InboxStore.TABLE,
            InboxStore.id(x.inboxSeq())).text());
        if (stored != null) {
          in = StoreCodec.decode(StoredInboxEntry.class, stored).getInput();
        }
      }
      deadLetter(record, in, "VALIDATION", x.reason());
    }
    for (StoreOp op : r.store()) {
      String key = new Key(cluster, op.table(), op.id()).text();
      if (op.value() == null) {
        store.delete(key);
      } else {
        store.put(key, StoreCodec.encode(op.value()));
      }
    }
    for (HostRecord out : r.records()) {
      byte[] bytes = out.value() == null ? null : serializer.serialize(out.topic(), out.value());
      listener.published(out, bytes);
      context.forward(new Record<>(out.key().getBytes(StandardCharsets.UTF_8),
          new Out(out.topic(), bytes), record.timestamp()));
    }
    states.put(cluster, r.state());
    listener.stepped(cluster, r, env.input() == clock);
  }

  private void deadLetter(Record<byte[], byte[]> record, LedgerInput in, String errorClass,
      String reason) {
    byte[] payload = new byte[in.getPayload().remaining()];
    in.getPayload().duplicate().get(payload);
    listener.deadLettered(in.getSourceTopic(), errorClass);
    context.forward(new Record<>(record.key(), letters.letter(in.getSourceTopic(),
        in.getSourcePartition(), in.getSourceOffset(), null, payload, errorClass, reason,
        record.timestamp()), record.timestamp()));
  }
}
