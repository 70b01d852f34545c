package io.tideline.quota.stream;

import io.tideline.events.LedgerInput;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.validation.InputBounds;
import io.tideline.quota.config.QuotaPolicy;
import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The quota service's Kafka Streams topology (issue #5), a static factory so tests build it with
 * {@code TopologyTestDriver} and the service with Quarkus:
 *
 * <ol>
 *   <li>Each input ({@code quota.config}, {@code jobs.submitted}, {@code jobs.lifecycle},
 *       {@code forecast.slots}, {@code gpu.telemetry}, {@code cluster.clock}) is read as raw bytes
 *       and checked by {@link InputGate}; refused records go to {@code <topic>.dlq} with the reason.
 *   <li>Accepted inputs are re-keyed by the cluster and recorded on one retained topic,
 *       {@code quota.inputs} ({@code LedgerInput}: source topic, partition, offset, original bytes),
 *       so one task — the single writer — sees every quota event of a cluster in one order, and an
 *       audit can replay exactly that order through this same graph (ADR 0005).
 *   <li>{@link QuotaWriter} decides with the core and keeps its state in three persistent stores
 *       with changelogs: {@value #STATE_STORE} (definition, ledger, logical now, peaks, index),
 *       {@value #JOBS_STORE} (per job) and {@value #BILLING_STORE} (per tenant and day).
 *   <li>Outputs are routed by record type: {@code quota.verdicts}, {@code quota.state},
 *       {@code billing.usage}, {@code quota.changes}, {@code quota.reclaims}.
 * </ol>
 */
public final class QuotaTopology {

  public static final String STATE_STORE = "quota-state";
  public static final String JOBS_STORE = "quota-jobs";
  public static final String BILLING_STORE = "quota-billing";

  private QuotaTopology() {}

  /**
   * Builds the topology.
   *
   * @param serdeConfig the registry serde settings ({@code AvroSerdes.serdeConfig})
   */
  public static Topology build(QuotaPolicy policy, Map<String, Object> serdeConfig,
      QuotaListener listener) {
    return build(policy, serdeConfig, listener,
        InputBounds.DEFAULTS.withSubmissions(policy.intakeLimits()));
  }

  /**
   * Builds the topology; the gate holds every input to {@code bounds} ({@code tideline.intake.*}).
   */
  public static Topology build(QuotaPolicy policy, Map<String, Object> serdeConfig,
      QuotaListener listener, InputBounds bounds) {
    StreamsBuilder builder = new StreamsBuilder();
    builder.addStateStore(store(STATE_STORE));
    builder.addStateStore(store(JOBS_STORE));
    builder.addStateStore(store(BILLING_STORE));
    Serde<SpecificRecord> out = avroSerde(serdeConfig);

    // 1. Gate every input where its offset is known.
    KStream<String, Routed> gated = null;
    for (String topic : QuotaTopics.INPUTS) {
      KStream<String, Routed> s = builder
          .stream(topic, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray())
              .withName("read-" + topic))
          .process(() -> new InputGate(policy.service(), policy.cluster(), bounds,
              deserializer(serdeConfig), listener));
      gated = gated == null ? s : gated.merge(s);
    }
    // 2. Dead letters out; accepted inputs to the single writer of the cluster.
    gated.filter((k, r) -> !r.isInput()).map((k, r) -> org.apache.kafka.streams.KeyValue.pair(
        r.outKey, r.out)).to((k, v, ctx) -> QuotaTopics.topicOf(v),
        Produced.with(Serdes.String(), out));
    // 3. Accepted inputs are recorded, keyed by the cluster, on quota.inputs: a retained topic, the
    //    totally ordered input of the decisions (what `tideline audit replay` re-runs).
    Serializer<Object> logWriter = serializer(serdeConfig);
    Deserializer<Object> logReader = deserializer(serdeConfig);
    gated.filter((k, r) -> r.isInput())
        .processValues(() -> new InputLog(logWriter))
        .to(TopicCatalogue.QUOTA_INPUTS, Produced.with(Serdes.String(), Serdes.ByteArray()));
    builder.stream(TopicCatalogue.QUOTA_INPUTS, Consumed.with(Serdes.String(), Serdes.ByteArray())
            .withName("read-" + TopicCatalogue.QUOTA_INPUTS))
        .mapValues(bytes -> InputLog.unpack(logReader, bytes).pack())
        // 4. The single writer, deciding in the log's order.
        .process(() -> new QuotaWriter(policy, deserializer(serdeConfig), listener), STATE_STORE,
            JOBS_STORE, BILLING_STORE)
        // 5. Outputs by type.
        .to((k, v, ctx) -> QuotaTopics.topicOf(v), Produced.with(Serdes.String(), out));
    return builder.build();
  }

  @SuppressWarnings("unchecked")
  private static Serializer<Object> serializer(Map<String, Object> serdeConfig) {
    return (Serializer<Object>) (Serializer<?>) io.tideline.platform.serde.AvroSerdes
        .valueSerializer(serdeConfig);
  }

  /**
   * Writes an accepted input as a {@link LedgerInput} (its topic, partition and offset, which the
   * record context still knows here, and the original bytes) and reads it back for the writer.
   */
  static final class InputLog implements FixedKeyProcessor<String, Routed, byte[]> {
    private final Serializer<Object> serializer;
    private FixedKeyProcessorContext<String, byte[]> context;

    InputLog(Serializer<Object> serializer) {
      this.serializer = serializer;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, byte[]> context) {
      this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<String, Routed> record) {
      RecordMetadata meta = context.recordMetadata().orElseThrow();
      LedgerInput in = LedgerInput.newBuilder().setSourceTopic(record.value().topic)
          .setSourcePartition(meta.partition()).setSourceOffset(meta.offset())
          .setPayload(ByteBuffer.wrap(record.value().bytes)).build();
      context.forward(record.withValue(serializer.serialize(TopicCatalogue.QUOTA_INPUTS, in)));
    }

    static Routed unpack(Deserializer<Object> deserializer, byte[] bytes) {
      LedgerInput in = (LedgerInput) deserializer.deserialize(TopicCatalogue.QUOTA_INPUTS, bytes);
      ByteBuffer payload = in.getPayload().duplicate();
      byte[] raw = new byte[payload.remaining()];
      payload.get(raw);
      return Routed.input(in.getSourceTopic(), raw);
    }
  }

  private static StoreBuilder<KeyValueStore<String, String>> store(String name) {
    return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.String(),
        Serdes.String()).withLoggingEnabled(Map.of());
  }

  @SuppressWarnings("unchecked")
  private static Deserializer<Object> deserializer(Map<String, Object> serdeConfig) {
    return (Deserializer<Object>) (Deserializer<?>) io.tideline.platform.serde.AvroSerdes
        .valueDeserializer(serdeConfig);
  }

  private static Serde<SpecificRecord> avroSerde(Map<String, Object> serdeConfig) {
    Serializer<SpecificRecord> s = io.tideline.platform.serde.AvroSerdes.valueSerializer(serdeConfig);
    Deserializer<SpecificRecord> d = io.tideline.platform.serde.AvroSerdes
        .valueDeserializer(serdeConfig);
    return Serdes.serdeFrom(s, d);
  }
}
