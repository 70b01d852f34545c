package io.tideline.placement.ledger;

import io.tideline.core.scheduling.PlacementEffect;
import io.tideline.core.scheduling.PlacementPolicy;
import io.tideline.core.scheduling.PlacementState;
import io.tideline.events.LedgerInput;
import io.tideline.platform.kernel.HostRecord;
import io.tideline.platform.kernel.InboxStore;
import io.tideline.platform.kernel.PlacementHost;
import io.tideline.platform.kernel.StoreCodec;
import io.tideline.platform.kernel.StoreOp;
import io.tideline.platform.ledger.Envelope;
import io.tideline.platform.ledger.Out;
import io.tideline.platform.ledger.TopologyDeadLetters;
import io.tideline.state.StoredInboxEntry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.jboss.logging.Logger;

/**
 * Second stage: the single writer of each cluster's ledger — an adapter around the placement
 * kernel ({@link PlacementHost}). Records arrive keyed by cluster, so one task owns a cluster and
 * offers its inputs in the input log's order. For each record: decode, step, then write the
 * step's store entries (typed records, {@code cluster|table|id}) and forward its records; a record
 * whose step fails changes nothing (the state is immutable: the previous one stays) and is
 * dead-lettered with the reason. With {@code exactly_once_v2} the store's changelog, the outputs
 * and the input offsets commit together, and {@link #init} restores exactly the committed state.
 */
final class LedgerProcessor implements Processor<byte[], byte[], byte[], Out> {

  private static final Logger LOG = Logger.getLogger(LedgerProcessor.class);

  private final PlacementPolicy policy;
  private final PlacementTopology.Serdes2 avro;
  private final PlacementMeters meters;
  private final PlacementHost host;
  private ProcessorContext<byte[], Out> context;
  private KeyValueStore<String, byte[]> store;
  private Serializer<Object> serializer;
  private Deserializer<Object> deserializer;
  private TopologyDeadLetters letters;
  private final Map<String, PlacementState> states = new HashMap<>();

  LedgerProcessor(PlacementPolicy policy, PlacementTopology.Serdes2 avro,
      PlacementMeters meters) {
    this.policy = policy;
    this.avro = avro;
    this.meters = meters;
    this.host = new PlacementHost(policy);
  }

  @Override
  public void init(ProcessorContext<byte[], Out> context) {
    this.context = context;
    this.store = context.getStateStore(PlacementTopology.STORE);
    this.serializer = avro.serializer();
    this.deserializer = avro.deserializer();
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
    byCluster.forEach((cluster, tables) -> states.put(cluster,
        host.restore(tables, (topic, bytes) -> (SpecificRecord) deserializer.deserialize(topic,
            bytes))));
    if (!byCluster.isEmpty()) {
      LOG.infof("restored the ledgers of %s from the store", byCluster.keySet());
    }
  }

  private static SpecificRecord decode(String table, byte[] bytes) {
    Class<? extends SpecificRecord> type = PlacementHost.STORE_TYPES.get(table);
    if (type == null) {
      throw new IllegalStateException("unknown store table " + table);
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
    Envelope<Input> env = Envelope.decode(Input.class, record.value());
    PlacementState state = states.getOrDefault(cluster, PlacementState.empty());
    String topic = env.input().topic();
    LedgerInput arrived = LedgerInput.newBuilder().setSourceTopic(topic)
        .setSourcePartition(env.partition()).setSourceOffset(env.offset())
        .setPayload(ByteBuffer.wrap(env.payload())).build();
    PlacementHost.Result r;
    try {
      SpecificRecord event = (SpecificRecord) deserializer.deserialize(topic, env.payload());
      r = host.offer(state.meta().now(), state, topic, event, arrived);
    } catch (RuntimeException e) {
      // nothing of this record reached the store or a topic: the previous state stays
      LOG.warnf(e, "cluster %s: %s record %d@%d refused", cluster, topic, env.partition(),
          env.offset());
      deadLetter(record, topic, env.partition(), env.offset(), env.payload(), "PROCESSING",
          String.valueOf(e.getMessage()));
      return;
    }
    // refused inputs: dead letters (an input applied from the inbox is read back from the store)
    for (PlacementEffect.Refused x : r.refused()) {
      if (x.inboxSeq() < 0) {
        deadLetter(record, topic, env.partition(), env.offset(), env.payload(), "VALIDATION",
            x.reason());
      } else {
        byte[] stored = store.get(new Key(cluster, InboxStore.TABLE,
            InboxStore.id(x.inboxSeq())).text());
        LedgerInput in = stored == null ? arrived
            : StoreCodec.decode(StoredInboxEntry.class, stored).getInput();
        byte[] payload = new byte[in.getPayload().remaining()];
        in.getPayload().duplicate().get(payload);
        deadLetter(record, in.getSourceTopic(), in.getSourcePartition(), in.getSourceOffset(),
            payload, "VALIDATION", x.reason());
      }
      meters.deadLettered(topic, "VALIDATION");
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
      context.forward(new Record<>(out.key().getBytes(StandardCharsets.UTF_8),
          new Out(out.topic(), bytes), record.timestamp()));
    }
    states.put(cluster, r.state());
    meters.step(cluster, r, host, env.input() == Input.CLOCK);
  }

  private void deadLetter(Record<byte[], byte[]> record, String topic, int partition,
      long offset, byte[] payload, String errorClass, String reason) {
    context.forward(new Record<>(record.key(), letters.letter(topic, partition, offset, null,
        payload, errorClass, reason, record.timestamp()), record.timestamp()));
  }
}
