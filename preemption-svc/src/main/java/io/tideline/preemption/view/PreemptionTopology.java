package io.tideline.preemption.view;

import io.tideline.platform.ledger.Envelope;
import io.tideline.platform.ledger.InputLog;
import io.tideline.platform.ledger.InputTopic;
import io.tideline.platform.ledger.LedgerStores;
import io.tideline.platform.ledger.Out;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.validation.InputBounds;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

/**
 * The preemption topology (issue #7), a static factory so {@code TopologyTestDriver} tests and
 * the service run the same graph (placement's shape):
 *
 * <pre>
 *   inputs (raw bytes) ─▶ intake ─┬─▶ &lt;topic&gt;.dlq                (bad input, with the reason)
 *                                 └─▶ preemption.inputs (by cluster, retained)
 *                                        ─▶ view ─▶ preemption.decisions
 *                       (view + decision stores) └▶ &lt;topic&gt;.dlq
 * </pre>
 *
 * The accepted inputs go through an explicit, retained log ({@code preemption.inputs}, value
 * {@code LedgerInput}) instead of an internal repartition topic, which Streams purges: the log is
 * the exact order the view decided in, so {@code tideline audit replay} can re-run this topology
 * on it and reproduce every decision (ADR 0005, placement's and quota's shape).
 *
 * Run it with {@code processing.guarantee=exactly_once_v2}: the stores' changelogs, every output
 * and the input offsets then commit together.
 */
public final class PreemptionTopology {

  /** The per-cluster view (nodes, jobs, verdicts, holdings, lifecycle facts, reservations). */
  public static final String VIEW_STORE = "preemption-view";
  /** Published decisions by decision id, for {@code GET /decisions}. */
  public static final String DECISION_STORE = "preemption-decisions";
  /** Marker topic of intake records bound for the view (never written as such). */
  static final String VIEW_INPUT = "preemption-view-input";

  /** The registry serializer and deserializer shared by the processors (thread-safe). */
  record Avro(Serializer<Object> serializer, Deserializer<Object> deserializer) {}

  private PreemptionTopology() {}

  /** Topics the topology reads. */
  public static List<String> inputTopics() {
    return InputTopic.topics(Input.class);
  }

  /** Topics the topology writes (they must exist: sinks do not create topics). */
  public static List<String> outputTopics() {
    List<String> t = new ArrayList<>(List.of(TopicCatalogue.PREEMPTION_DECISIONS,
        TopicCatalogue.PREEMPTION_INPUTS));
    inputTopics().forEach(i -> t.add(i + ".dlq"));
    return t;
  }

  /** Builds the topology with the default input bounds. */
  public static Topology build(io.tideline.core.preemption.kernel.PreemptionPolicy policy, Map<String, Object> serdeConfig) {
    return build(policy, serdeConfig, InputBounds.DEFAULTS);
  }

  /**
   * Builds the topology; {@code serdeConfig} is the registry serde config of the platform,
   * {@code bounds} what the intake holds every input to ({@code tideline.intake.*}).
   */
  public static Topology build(io.tideline.core.preemption.kernel.PreemptionPolicy policy, Map<String, Object> serdeConfig,
      InputBounds bounds) {
    return build(policy, serdeConfig, bounds, LedgerStores.PERSISTENT);
  }

  /**
   * Builds the topology with its stores {@code stores}: {@link LedgerStores#PERSISTENT} in the
   * service, {@link LedgerStores#IN_MEMORY} in the audit replay (ADR 0021).
   */
  public static Topology build(io.tideline.core.preemption.kernel.PreemptionPolicy policy,
      Map<String, Object> serdeConfig, InputBounds bounds, LedgerStores stores) {
    Avro avro = new Avro(AvroSerdes.valueSerializer(serdeConfig),
        AvroSerdes.valueDeserializer(serdeConfig));
    StreamsBuilder b = new StreamsBuilder();
    b.addStateStore(Stores.keyValueStoreBuilder(stores.supplier(VIEW_STORE),
        Serdes.String(), Serdes.ByteArray()));
    b.addStateStore(Stores.keyValueStoreBuilder(stores.supplier(DECISION_STORE),
        Serdes.String(), Serdes.ByteArray()));
    Serde<Out> out = Serdes.serdeFrom((Serializer<Out>) (topic, o) -> o.value(),
        (topic, bytes) -> {
          throw new UnsupportedOperationException("outputs are never read back");
        });
    // 1. intake: decode, dead-letter or re-key to the cluster
    KStream<byte[], Out> intake = b.stream(inputTopics(),
            Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("inputs"))
        .process(() -> IntakeRules.intake(policy, avro, bounds), Named.as("intake"));
    intake.filter((k, v) -> !VIEW_INPUT.equals(v.topic()), Named.as("dead-letters"))
        .to((k, v, ctx) -> v.topic(), Produced.with(Serdes.ByteArray(), out)
            .withName("intake-dlq"));
    // 2. record every accepted input, keyed by its cluster, on the input log: a retained topic,
    //    the totally ordered input of the decisions (what `tideline audit replay` re-runs)
    intake.filter((k, v) -> VIEW_INPUT.equals(v.topic()), Named.as("accepted"))
        .mapValues(o -> InputLog.write(avro.serializer(), TopicCatalogue.PREEMPTION_INPUTS,
            Envelope.decode(Input.class, o.value())), Named.as("envelopes"))
        .to(TopicCatalogue.PREEMPTION_INPUTS, Produced.with(Serdes.ByteArray(),
            Serdes.ByteArray()).withName("record-inputs"));
    // 3. one view task per cluster key, deciding in the log's order; its decisions and
    //    processing dead letters
    b.stream(TopicCatalogue.PREEMPTION_INPUTS,
            Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("view-log"))
        .mapValues(bytes -> InputLog.read(avro.deserializer(), TopicCatalogue.PREEMPTION_INPUTS,
            Input.class, bytes).encode(), Named.as("view-envelopes"))
        .process(() -> new ViewProcessor(policy, avro), Named.as("view"), VIEW_STORE,
            DECISION_STORE)
        .to((k, v, ctx) -> v.topic(), Produced.with(Serdes.ByteArray(), out)
            .withName("outputs"));
    return b.build();
  }
}
