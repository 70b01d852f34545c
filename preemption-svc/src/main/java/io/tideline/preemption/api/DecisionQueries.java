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

  private PreemptionDecision decode(byte[] b) {
    return (PreemptionDecision) deserializer.deserialize(PreemptionTopology.DECISION_STORE, b);
  }

  private ReadOnlyKeyValueStore<String, byte[]> store() {
    return streams.store(StoreQueryParameters.fromNameAndType(PreemptionTopology.DECISION_STORE,
        QueryableStoreTypes.keyValueStore()));
  }
}
