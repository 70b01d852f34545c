package io.tideline.preemption.view;

import io.tideline.platform.ledger.Envelope;
import io.tideline.platform.ledger.Out;
import io.tideline.platform.ledger.TopologyDeadLetters;
import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockTick;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PreemptionRequest;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaVerdict;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
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
 * Second stage: the single writer of each cluster's view. Records arrive keyed by cluster, so one
 * task owns a cluster and sees its inputs in one order. A record's decisions and store writes are
 * buffered and applied only when it is done: a record either changes the view and publishes its
 * decisions completely, or — when it fails — changes nothing, is dead-lettered with the reason,
 * and the cluster's memory is reloaded from the store. With {@code exactly_once_v2} the stores'
 * changelogs, the outputs and the input offsets commit together.
 */
final class ViewProcessor implements Processor<byte[], byte[], byte[], Out> {

  private static final Logger LOG = Logger.getLogger(ViewProcessor.class);

  private final PreemptionPolicy policy;
  private final PreemptionTopology.Avro avro;
  private ProcessorContext<byte[], Out> context;
  private KeyValueStore<String, byte[]> store;
  private KeyValueStore<String, byte[]> decisions;
  private Serializer<Object> serializer;
  private Deserializer<Object> deserializer;
  private final Map<String, ClusterView> views = new HashMap<>();

  ViewProcessor(PreemptionPolicy policy, PreemptionTopology.Avro avro) {
    this.policy = policy;
    this.avro = avro;
  }

  @Override
  public void init(ProcessorContext<byte[], Out> context) {
    this.context = context;
    this.store = context.getStateStore(PreemptionTopology.VIEW_STORE);
    this.decisions = context.getStateStore(PreemptionTopology.DECISION_STORE);
    this.serializer = avro.serializer();
    this.deserializer = avro.deserializer();
    views.clear();
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
    byCluster.forEach((cluster, entries) -> views.put(cluster, load(cluster, entries)));
  }

  private ClusterView load(String cluster, Map<String, Map<String, byte[]>> entries) {
    ClusterView v = new ClusterView(cluster, policy, deserializer);
    v.restore(entries);
    return v;
  }

  private Map<String, Map<String, byte[]>> entriesOf(String cluster) {
    Map<String, Map<String, byte[]>> entries = new HashMap<>();
    try (KeyValueIterator<String, byte[]> it = store.prefixScan(cluster + "|",
        new StringSerializer())) {
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
    ClusterView view = views.computeIfAbsent(cluster, c -> load(c, Map.of()));
    Buffer fx = new Buffer(cluster, record.timestamp());
    try {
      Object event = deserializer.deserialize(env.input().topic(), env.payload());
      byte[] raw = env.payload();
      switch (env.input()) {
        case INVENTORY -> view.onInventory(fx, raw, (NodeInventory) event);
        case SUBMITTED -> view.onSubmitted(fx, raw, (JobSubmitted) event);
        case VERDICT -> view.onVerdict(fx, raw, (QuotaVerdict) event);
        case LIFECYCLE -> view.onLifecycle(fx, (JobLifecycle) event);
        case RESERVATION -> view.onReservation(fx, raw, (CapacityReservation) event);
        case CLOCK -> view.onClock(fx, ((ClockTick) event).getTime());
        case PLACEMENT -> view.onPlacement(fx, raw, (PlacementDecision) event);
        case REQUEST -> view.onRequest(fx, (PreemptionRequest) event);
        case RECLAIM -> view.onReclaim(fx, (QuotaReclaim) event);
      }
    } catch (RuntimeException e) {
      // nothing of this record reached a store or a topic: reload memory from the store
      LOG.warnf(e, "cluster %s: %s record %d@%d refused", cluster, env.input().topic(),
          env.partition(), env.offset());
      views.put(cluster, load(cluster, entriesOf(cluster)));
      context.forward(new Record<>(record.key(), new TopologyDeadLetters(serializer,
          context.applicationId()).letter(env.input().topic(), env.partition(), env.offset(), null,
          env.payload(), "PROCESSING", String.valueOf(e.getMessage()), record.timestamp()),
          record.timestamp()));
      return;
    }
    fx.flush();
  }

  /** Buffers one record's effects; {@link #flush} applies them. */
  private final class Buffer implements ClusterView.Effects {
    private final String cluster;
    private final long timestamp;
    private final LinkedHashMap<String, byte[]> puts = new LinkedHashMap<>();
    private final LinkedHashMap<String, byte[]> kept = new LinkedHashMap<>();
    private final List<Record<byte[], Out>> outs = new ArrayList<>();

    Buffer(String cluster, long timestamp) {
      this.cluster = cluster;
      this.timestamp = timestamp;
    }

    @Override
    public byte[] emit(String topic, String key, SpecificRecord value) {
      byte[] bytes = serializer.serialize(topic, value);
      outs.add(new Record<>(key.getBytes(StandardCharsets.UTF_8), new Out(topic, bytes),
          timestamp));
      return bytes;
    }

    @Override
    public void put(String kind, String id, byte[] value) {
      puts.put(cluster + "|" + kind + "|" + id, value);
    }

    @Override
    public void keep(String decisionId, byte[] value) {
      kept.put(decisionId, value);
    }

    void flush() {
      puts.forEach((k, v) -> {
        if (v == null) {
          store.delete(k);
        } else {
          store.put(k, v);
        }
      });
      kept.forEach(decisions::put);
      outs.forEach(context::forward);
    }
  }
}
