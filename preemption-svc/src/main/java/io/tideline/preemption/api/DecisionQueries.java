package io.tideline.preemption.api;

import io.tideline.events.PreemptionDecision;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.preemption.view.PreemptionTopology;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads the decision store of the single writer (Kafka Streams interactive queries). One
 * instance holds a cluster's partition; with several instances the others would forward to it
 * (not needed while one instance serves a cluster).
 */
@ApplicationScoped
public class DecisionQueries {

  private final KafkaStreams streams;
  private final Deserializer<Object> deserializer;

  public DecisionQueries(KafkaStreams streams, AvroSerdes serdes) {
    this.streams = streams;
    this.deserializer = AvroSerdes.valueDeserializer(serdes.valueSerdeConfig());
  }

  /** The decision with this id, if published. */
  public Optional<PreemptionDecision> get(String decisionId) {
    byte[] b = store().get(decisionId);
    return Optional.ofNullable(b == null ? null : decode(b));
  }

  /** The {@code limit} most recent decisions, newest first (event time, then id). */
  public List<PreemptionDecision> recent(int limit) {
    List<PreemptionDecision> all = new ArrayList<>();
    try (KeyValueIterator<String, byte[]> it = store().all()) {
      while (it.hasNext()) {
        KeyValue<String, byte[]> kv = it.next();
        all.add(decode(kv.value));
      }
    }
    all.sort(Comparator.comparing(PreemptionDecision::getDecidedAt).reversed()
        .thenComparing(PreemptionDecision::getDecisionId));
    return all.subList(0, Math.min(limit, all.size()));
  }

  /**
   * What the view holds, per cluster and entry kind (N nodes, J submissions, V verdicts, R running
   * jobs, H holds, L lifecycle facts, S reservations waiting to start, M meta) — counts, so an
   * operator (or a test) can see whether the view has caught up with the fleet.
   */
  public java.util.Map<String, java.util.Map<String, Integer>> viewCounts() {
    java.util.Map<String, java.util.Map<String, Integer>> out = new java.util.TreeMap<>();
    ReadOnlyKeyValueStore<String, byte[]> view = streams.store(StoreQueryParameters
        .fromNameAndType(PreemptionTopology.VIEW_STORE, QueryableStoreTypes.keyValueStore()));
    try (KeyValueIterator<String, byte[]> it = view.all()) {
      while (it.hasNext()) {
        String key = it.next().key;
        int a = key.indexOf('|');
        int b = key.indexOf('|', a + 1);
        out.computeIfAbsent(key.substring(0, a), c -> new java.util.TreeMap<>())
            .merge(key.substring(a + 1, b), 1, Integer::sum);
      }
    }
    return out;
  }

  private PreemptionDecision decode(byte[] b) {
    return (PreemptionDecision) deserializer.deserialize(PreemptionTopology.DECISION_STORE, b);
  }

  private ReadOnlyKeyValueStore<String, byte[]> store() {
    return streams.store(StoreQueryParameters.fromNameAndType(PreemptionTopology.DECISION_STORE,
        QueryableStoreTypes.keyValueStore()));
  }
}
