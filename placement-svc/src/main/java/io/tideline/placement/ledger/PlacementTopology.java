package io.tideline.placement.ledger;

import io.tideline.core.scheduling.PlacementPolicy;
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
 * The placement topology (issue #6), a static factory so {@code TopologyTestDriver} tests, the
 * crash test and the service all run the same graph:
 *
 * <pre>
 *   inputs (raw bytes) ─▶ intake ─┬─▶ &lt;topic&gt;.dlq                  (bad input, with the reason)
 *                                 └─▶ placement.ledger.inputs (by cluster, retained)
 *                                        ─▶ ledger ─▶ placement.decisions
 *                                         (store)   ├▶ placement.queue
 *                                                                      ├▶ evictions
 *                                                                      ├▶ preemption.requests
 *                                                                      └▶ &lt;topic&gt;.dlq
 * </pre>
 *
 * Run it with {@code processing.guarantee=exactly_once_v2}: the ledger store's changelog, every
 * output and the input offsets then commit together.
 */
public final class PlacementTopology {

  /** The ledger's persistent store (changelogged). */
  public static final String STORE = "placement-ledger";
  /** Marker topic of intake records bound for the ledger (never written as such). */
  static final String LEDGER_INPUT = "placement-ledger-input";

  /** Topics the topology reads. */
  public static List<String> inputTopics() {
    return InputTopic.topics(Input.class);
  }

  /** Topics the topology writes (they must exist: sinks do not create topics). */
  public static List<String> outputTopics() {
    List<String> t = new ArrayList<>(List.of(TopicCatalogue.PLACEMENT_DECISIONS,
        TopicCatalogue.PLACEMENT_QUEUE, TopicCatalogue.EVICTIONS,
        TopicCatalogue.PREEMPTION_REQUESTS, TopicCatalogue.PLACEMENT_FRAGMENTATION,
        TopicCatalogue.PLACEMENT_LEDGER, TopicCatalogue.PLACEMENT_LEDGER_INPUTS));
    inputTopics().forEach(i -> t.add(i + ".dlq"));
    return t;
  }

  private PlacementTopology() {}

  /**
   * The registry serializer and deserializer shared by the topology's processors (Apicurio's serdes
   * are thread-safe and cache schemas per instance, so sharing them saves a registry round trip
   * per schema and task).
   */
  record Serdes2(org.apache.kafka.common.serialization.Serializer<Object> serializer,
      org.apache.kafka.common.serialization.Deserializer<Object> deserializer,
      Map<String, Object> config) {}

  /** Builds the topology with the default input bounds. */
  public static Topology build(PlacementPolicy policy, Map<String, Object> platformSerdeConfig,
      PlacementMeters meters) {
    return build(policy, platformSerdeConfig, meters, InputBounds.DEFAULTS);
  }

  /**
   * Builds the topology; {@code serdeConfig} is the registry serde config of the platform,
   * {@code bounds} what the intake holds every input to ({@code tideline.intake.*}).
   */
  public static Topology build(PlacementPolicy policy, Map<String, Object> platformSerdeConfig,
      PlacementMeters meters, InputBounds bounds) {
    return build(policy, platformSerdeConfig, meters, bounds, LedgerStores.PERSISTENT);
  }

  /**
   * Builds the topology with its ledger store {@code stores}: {@link LedgerStores#PERSISTENT} in
   * the service, {@link LedgerStores#IN_MEMORY} in the audit replay (ADR 0021).
   */
  public static Topology build(PlacementPolicy policy, Map<String, Object> platformSerdeConfig,
      PlacementMeters meters, InputBounds bounds, LedgerStores stores) {
    Map<String, Object> serdeConfig = platformSerdeConfig;
    // one registry-backed serde pair for every task: each schema is fetched once, not per task
    Serdes2 avro = new Serdes2(AvroSerdes.valueSerializer(serdeConfig),
        AvroSerdes.valueDeserializer(serdeConfig), serdeConfig);
    StreamsBuilder b = new StreamsBuilder();
    b.addStateStore(Stores.keyValueStoreBuilder(stores.supplier(STORE),
        Serdes.String(), Serdes.ByteArray()));
    Serde<Out> out = Serdes.serdeFrom((Serializer<Out>) (topic, o) -> o.value(),
        (topic, bytes) -> {
          throw new UnsupportedOperationException("outputs are never read back");
        });
    // 1. intake: decode, dead-letter or re-key to the cluster
    KStream<byte[], Out> intake = b.stream(inputTopics(),
            Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("inputs"))
        .process(() -> IntakeRules.intake(policy, avro, meters, bounds), Named.as("intake"));
    intake.filter((k, v) -> !LEDGER_INPUT.equals(v.topic()), Named.as("dead-letters"))
        .to((k, v, ctx) -> v.topic(), Produced.with(Serdes.ByteArray(), out)
            .withName("intake-dlq"));
    // 2. record every accepted input, keyed by its cluster, on the ledger input log: a retained
    //    topic, the totally ordered input of the decisions (what `tideline audit replay` re-runs)
    intake.filter((k, v) -> LEDGER_INPUT.equals(v.topic()), Named.as("accepted"))
        .mapValues(o -> InputLog.write(avro.serializer(), TopicCatalogue.PLACEMENT_LEDGER_INPUTS,
            Envelope.decode(Input.class, o.value())), Named.as("envelopes"))
        .to(TopicCatalogue.PLACEMENT_LEDGER_INPUTS, Produced.with(Serdes.ByteArray(),
            Serdes.ByteArray()).withName("record-inputs"));
    // 3. one ledger task per cluster key, deciding in the log's order
    b.stream(TopicCatalogue.PLACEMENT_LEDGER_INPUTS,
            Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("ledger-log"))
        .mapValues(bytes -> InputLog.read(avro.deserializer(),
            TopicCatalogue.PLACEMENT_LEDGER_INPUTS, Input.class, bytes).encode(),
            Named.as("ledger-envelopes"))
        .process(() -> new LedgerProcessor(policy, avro, meters), Named.as("ledger"),
            STORE)
        .to((k, v, ctx) -> v.topic(), Produced.with(Serdes.ByteArray(), out)
            .withName("outputs"));
    return b.build();
  }
}
