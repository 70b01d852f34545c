package io.tideline.quota.stream;

import io.tideline.core.quota.kernel.QuotaKernelState;
import io.tideline.events.LedgerInput;
import io.tideline.platform.kernel.quota.QuotaHost;
import io.tideline.platform.ledger.LedgerStores;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.validation.InputBounds;
import io.tideline.quota.config.QuotaPolicy;
import java.nio.ByteBuffer;
import java.util.List;
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
 * {@code TopologyTestDriver}, the audit replays it and the service runs it with Quarkus:
 *
 * <ol>
 *   <li>Each input ({@code quota.config}, {@code jobs.submitted}, {@code jobs.lifecycle},
 *       {@code forecast.slots}, {@code gpu.telemetry}, {@code cluster.clock}) is read as raw bytes
 *       and checked by {@link InputGate}; refused records go to {@code <topic>.dlq} with the reason.
 *   <li>Accepted inputs are re-keyed by the cluster and recorded on one retained topic,
 *       {@code quota.inputs} ({@code LedgerInput}: source topic, partition, offset, original bytes),
 *       so one task — the single writer — sees every quota event of a cluster, and an audit can
 *       replay exactly that log through this same graph (ADR 0005).
 *   <li>{@link QuotaWriter} runs the core's {@code QuotaKernel} through the platform's
 *       {@link QuotaHost} and keeps the kernel's state in one persistent, changelogged store per
 *       table ({@link #STORES}), values typed Avro records ({@code io.tideline.state}).
 *   <li>Outputs are routed by record type: {@code quota.verdicts}, {@code quota.state},
 *       {@code billing.usage}, {@code quota.changes}, {@code quota.reclaims}, and dead letters of
 *       inputs the kernel refused (a conflicting resubmission, an input far ahead of the clock).
 * </ol>
 */
public final class QuotaTopology {

  /** The kernel's small values: keys {@code definition} and {@code clock}. */
  public static final String STATE_STORE = "quota-state";
  public static final String JOBS_STORE = "quota-jobs";
  public static final String SAMPLES_STORE = "quota-samples";
  public static final String BILLING_STORE = "quota-billing";
  public static final String HISTORY_STORE = "quota-history";
  public static final String PEAKS_STORE = "quota-peaks";
  public static final String RECLAIMS_STORE = "quota-reclaims";
  /** The inputs waiting for a tick, by inbox sequence ({@code LedgerInput} envelopes). */
  public static final String INBOX_STORE = "quota-inbox";

  /** Store of each kernel table, 1:1. */
  static final Map<String, String> STORES = Map.of(
      QuotaKernelState.META, STATE_STORE,
      QuotaKernelState.JOBS, JOBS_STORE,
      QuotaKernelState.SAMPLES, SAMPLES_STORE,
      QuotaKernelState.BILLING, BILLING_STORE,
      QuotaKernelState.HISTORY, HISTORY_STORE,
      QuotaKernelState.PEAKS, PEAKS_STORE,
      QuotaKernelState.RECLAIMS, RECLAIMS_STORE,
      QuotaKernelState.INBOX, INBOX_STORE);

  /** Every store, in a fixed order. */
  public static final List<String> ALL_STORES = List.of(STATE_STORE, JOBS_STORE, SAMPLES_STORE,
      BILLING_STORE, HISTORY_STORE, PEAKS_STORE, RECLAIMS_STORE, INBOX_STORE);

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
    return build(policy, serdeConfig, listener, bounds, LedgerStores.PERSISTENT);
  }

  /**
   * Builds the topology with its stores {@code stores}: {@link LedgerStores#PERSISTENT} in the
   * service, {@link LedgerStores#IN_MEMORY} in the audit replay (ADR 0021).
   */
  public static Topology build(QuotaPolicy policy, Map<String, Object> serdeConfig,
      QuotaListener listener, InputBounds bounds, LedgerStores stores) {
    QuotaHost host = new QuotaHost(policy.kernelConfig());
    StreamsBuilder builder = new StreamsBuilder();
    ALL_STORES.forEach(s -> builder.addStateStore(store(s, stores)));
    Serde<SpecificRecord> out = avroSerde(serdeConfig);

    // 1. Gate every input where its offset is known.
    KStream<String, Routed> gated = null;
    for (String topic : QuotaTopics.INPUTS) {
      KStream<String, Routed> s = builder
          .stream(topic, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray())
              .withName("read-" + topic))
          .process(() -> new InputGate(policy.service(), policy.cluster(), bounds,
              deserializer(serdeConfig), host, listener));
      gated = gated == null ? s : gated.merge(s);
    }
    // 2. Dead letters out; accepted inputs to the single writer of the cluster.
    gated.filter((k, r) -> !r.isInput()).map((k, r) -> org.apache.kafka.streams.KeyValue.pair(
        r.outKey, r.out)).to((k, v, ctx) -> QuotaTopics.topicOf(v),
        Produced.with(Serdes.String(), out));
    // 3. Accepted inputs are recorded, keyed by the cluster, on quota.inputs: a retained topic, the
    //    input of the decisions (what `tideline audit replay` re-runs).
    Serializer<Object> logWriter = serializer(serdeConfig);
    gated.filter((k, r) -> r.isInput())
        .processValues(() -> new InputLog(logWriter))
        .to(TopicCatalogue.QUOTA_INPUTS, Produced.with(Serdes.String(), Serdes.ByteArray()));
    builder.stream(TopicCatalogue.QUOTA_INPUTS, Consumed.with(Serdes.String(), Serdes.ByteArray())
            .withName("read-" + TopicCatalogue.QUOTA_INPUTS))
        // 4. The single writer: the kernel through its host.
        .process(() -> new QuotaWriter(policy, host, deserializer(serdeConfig), listener),
            ALL_STORES.toArray(String[]::new))
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
   * Writes an accepted input as a {@link LedgerInput}: its topic, partition and offset (which the
   * record context still knows here) and the original bytes.
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
  }

  private static StoreBuilder<KeyValueStore<String, byte[]>> store(String name,
      LedgerStores stores) {
    return Stores.keyValueStoreBuilder(stores.supplier(name), Serdes.String(),
        Serdes.ByteArray()).withLoggingEnabled(Map.of());
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
