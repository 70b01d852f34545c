package io.tideline.placement.ledger;

import io.tideline.platform.ledger.Envelope;
import io.tideline.platform.ledger.Out;
import io.tideline.platform.ledger.TopologyDeadLetters;
import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockTick;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeInventory;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.SlotForecast;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
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
 * Second stage: the single writer of each cluster's ledger. Records arrive keyed by cluster, so one
 * task owns a cluster and sees its inputs in one order. For each record the {@link ClusterLedger}'s
 * outputs and store writes are buffered and released only when it is done: a record either
 * changes the ledger and produces its decisions completely, or — when it fails — changes nothing,
 * is dead-lettered with the reason, and the cluster's memory is reloaded from the store. With
 * {@code exactly_once_v2} the store's changelog, the outputs and the input offsets commit in one
 * transaction, so a crash can neither lose a decision nor apply one twice, and {@link #init}
 * rebuilds exactly the committed ledger.
 */
final class LedgerProcessor implements Processor<byte[], byte[], byte[], Out> {

  private static final Logger LOG = Logger.getLogger(LedgerProcessor.class);

  private final LedgerPolicy policy;
  private final PlacementTopology.Serdes2 avro;
  private final PlacementMeters meters;
  private ProcessorContext<byte[], Out> context;
  private KeyValueStore<String, byte[]> store;
  private Serializer<Object> serializer;
  private Deserializer<Object> deserializer;
  private TopologyDeadLetters letters;
  private final Map<String, ClusterLedger> ledgers = new HashMap<>();

  LedgerProcessor(LedgerPolicy policy, PlacementTopology.Serdes2 avro, PlacementMeters meters) {
    this.policy = policy;
    this.avro = avro;
    this.meters = meters;
  }

  @Override
  public void init(ProcessorContext<byte[], Out> context) {
    this.context = context;
    this.store = context.getStateStore(PlacementTopology.STORE);
    this.serializer = avro.serializer();
    this.deserializer = avro.deserializer();
    this.letters = new TopologyDeadLetters(avro.serializer(), context.applicationId());
    // 1. group the store by cluster and kind; 2. rebuild each cluster's ledger and queue
    ledgers.clear();
    Map<String, Map<String, Map<String, byte[]>>> byCluster = new HashMap<>();
    try (KeyValueIterator<String, byte[]> it = store.all()) {
      while (it.hasNext()) {
        KeyValue<String, byte[]> kv = it.next();
        int a = kv.key.indexOf('|');
        int b = kv.key.indexOf('|', a + 1);
        byCluster.computeIfAbsent(kv.key.substring(0, a), c -> new HashMap<>())
            .computeIfAbsent(kv.key.substring(a + 1, b), k -> new HashMap<>())
            .put(kv.key.substring(b + 1), kv.value);
      }
    }
    byCluster.forEach((cluster, entries) -> ledgers.put(cluster, load(cluster, entries)));
    if (!byCluster.isEmpty()) {
      LOG.infof("restored the ledgers of %s from the store", byCluster.keySet());
    }
  }

  private ClusterLedger load(String cluster, Map<String, Map<String, byte[]>> entries) {
    ClusterLedger l = new ClusterLedger(cluster, policy, meters, deserializer);
    l.restore(entries);
    return l;
  }

  private Map<String, Map<String, byte[]>> entriesOf(String cluster) {
    Map<String, Map<String, byte[]>> entries = new HashMap<>();
    try (KeyValueIterator<String, byte[]> it = store.prefixScan(cluster + "|",
        new org.apache.kafka.common.serialization.StringSerializer())) {
      while (it.hasNext()) {
        KeyValue<String, byte[]> kv = it.next();
        int a = kv.key.indexOf('|');
        int b = kv.key.indexOf('|', a + 1);
        entries.computeIfAbsent(kv.key.substring(a + 1, b), k -> new HashMap<>())
            .put(kv.key.substring(b + 1), kv.value);
      }
    }
    return entries;
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    String cluster = new String(record.key(), StandardCharsets.UTF_8);
    Envelope<Input> env = Envelope.decode(Input.class, record.value());
    ClusterLedger ledger = ledgers.computeIfAbsent(cluster, c -> load(c, Map.of()));
    Buffer fx = new Buffer(cluster, record.timestamp());
    try {
      Object event = deserializer.deserialize(env.input().topic(), env.payload());
      switch (env.input()) {
        case INVENTORY -> ledger.onInventory(fx, env.payload(), (NodeInventory) event);
        case SUBMITTED -> ledger.onSubmitted(fx, env.payload(), (JobSubmitted) event);
        case VERDICT -> ledger.onVerdict(fx, env.payload(), (QuotaVerdict) event);
        case LIFECYCLE -> ledger.onLifecycle(fx, (JobLifecycle) event);
        case RESERVATION -> ledger.onReservation(fx, (CapacityReservation) event);
        case CLOCK -> ledger.onClock(fx, (ClockTick) event);
        case FORECAST -> ledger.onForecast(fx, (SlotForecast) event);
        case PREEMPTION_DECISION -> ledger.onPreemptionDecision(fx, (PreemptionDecision) event);
      }
    } catch (RuntimeException e) {
      // nothing of this record reached the store or a topic: reload memory from the store
      LOG.warnf(e, "cluster %s: %s record %d@%d refused", cluster, env.input().topic(),
          env.partition(), env.offset());
      ledgers.put(cluster, load(cluster, entriesOf(cluster)));
      meters.deadLettered(env.input().topic(), "PROCESSING");
      context.forward(new Record<>(record.key(), letters.letter(env.input().topic(),
          env.partition(), env.offset(), null, env.payload(), "PROCESSING",
          String.valueOf(e.getMessage()), record.timestamp()), record.timestamp()));
      return;
    }
    fx.flush();
  }

  /** Buffers one record's effects; {@link #flush} applies them. */
  private final class Buffer implements ClusterLedger.Effects {
    private final String cluster;
    private final long timestamp;
    private final LinkedHashMap<String, byte[]> puts = new LinkedHashMap<>();
    private final List<Record<byte[], Out>> outs = new ArrayList<>();

    Buffer(String cluster, long timestamp) {
      this.cluster = cluster;
      this.timestamp = timestamp;
    }

    @Override
    public byte[] emit(String topic, String key, SpecificRecord value) {
      byte[] bytes = value == null ? null : serializer.serialize(topic, value);
      outs.add(new Record<>(key.getBytes(StandardCharsets.UTF_8), new Out(topic, bytes),
          timestamp));
      return bytes;
    }

    @Override
    public void put(String kind, String id, byte[] value) {
      puts.put(cluster + "|" + kind + "|" + id, value);
    }

    void flush() {
      puts.forEach((k, v) -> {
        if (v == null) {
          store.delete(k);
        } else {
          store.put(k, v);
        }
      });
      outs.forEach(context::forward);
    }
  }
}
