package io.tideline.forecaster.topology;

import io.tideline.core.forecast.kernel.ForecastKernel;
import io.tideline.core.forecast.kernel.ForecastState;
import io.tideline.forecaster.config.ForecastSettings;
import io.tideline.platform.kernel.forecast.ForecastHost;
import io.tideline.platform.ledger.Out;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.validation.EventValidator;
import io.tideline.platform.validation.InputBounds;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The forecaster's Kafka Streams topology (issues #4, #14; F1–F4): wiring and store I/O around the
 * core {@link ForecastKernel}, run through the platform's {@link ForecastHost} exactly as the
 * simulator's in-process twin runs it. Built by a static factory so the service and the
 * {@code TopologyTestDriver} tests run the very same graph.
 *
 * <pre>
 *  gpu.telemetry      --telemetry stage (decode, check, drop what cannot change a GPU-minute)--\
 *  gpu.telemetry.batches --the same stage per node's scrape (ADR 0040) --> forecaster-telemetry-batches
 *  cluster.clock      --intake (decode, check)--> forecaster-clock (1 partition) ---------------\
 *  forecast.holidays  --intake--> forecaster-holidays ------------------------------------------ + kernel
 *  jobs.submitted     --intake--> forecaster-jobs ----------------------------------------------/  (one task)
 *  jobs.lifecycle     --intake--> forecaster-lifecycle -----------------------------------------/
 *  cluster.inventory  --intake--> forecaster-inventory ----------------------------------------/
 *  (refused records of any input, and inputs the kernel refuses) --> &lt;topic&gt;.dlq
 *  capacity.reservations, forecast.slots, forecast.slotmap &lt;-- kernel effects
 * </pre>
 *
 * <p>Every input is checked where it is read by the platform's shared {@code EventValidator}
 * with the configured {@link InputBounds} ({@code tideline.intake.*}): the field bounds, the event
 * time against the record's Kafka timestamp and the one tombstone rule every consumer of these
 * topics applies (ADR 0012). A tick it refuses is dead-lettered before the kernel and never moves
 * the forecaster's clock; an inventory tombstone is refused (a node leaves with {@code LEFT}).
 *
 * <p>Every input reaches the kernel as its original envelope (topic, partition, offset, key and
 * value bytes) over a single-partition internal topic per input, so one task owns every service,
 * the clock, the calendar, the jobs and the fleet. Each input keeps its own sub-topology and
 * dead-letter sink (a shared sink would tie gpu.telemetry's tasks to the clock's single
 * partition). Every store is persistent with a changelog; run it with
 * {@code processing.guarantee=exactly_once_v2}.
 */
public final class ForecastTopology {

  /** Topic of declared holidays (compacted, key = ISO date, tombstone = withdrawn). */
  public static final String FORECAST_HOLIDAYS = ForecastHost.FORECAST_HOLIDAYS;
  /** Topic of the daily F4 slot map (key = cluster). */
  public static final String FORECAST_SLOTMAP = ForecastHost.FORECAST_SLOTMAP;

  private ForecastTopology() {}

  /** Where the stores keep their state; both kinds are changelogged. */
  public enum StoreKind {
    /** RocksDB on local disk: what the service runs with. */
    PERSISTENT,
    /**
     * In memory. For {@code TopologyTestDriver} only: it commits after every record, and
     * RocksDB stores fsync a position checkpoint on each commit, which makes a scenario of a
     * few thousand records take minutes.
     */
    IN_MEMORY
  }

  /** The topology for {@code settings}, reading and writing with {@code serdes}. */
  public static Topology build(ForecastSettings settings, ForecastSerdes serdes,
      ForecastMeters meters) {
    return build(settings, serdes, meters, StoreKind.PERSISTENT);
  }

  /** The same topology with stores of the given kind and the default input bounds. */
  public static Topology build(ForecastSettings settings, ForecastSerdes serdes,
      ForecastMeters meters, StoreKind kind) {
    return build(settings, serdes, meters, kind, InputBounds.DEFAULTS);
  }

  /**
   * The topology with stores of the given kind, holding every input to {@code bounds}
   * ({@code tideline.intake.*}: the same checks every consumer of these topics applies).
   */
  public static Topology build(ForecastSettings settings, ForecastSerdes serdes,
      ForecastMeters meters, StoreKind kind, InputBounds bounds) {
    EventValidator validator = new EventValidator(bounds);
    StreamsBuilder builder = new StreamsBuilder();
    Serde<byte[]> bytes = Serdes.ByteArray();
    Serde<Out> outs = Serdes.serdeFrom((topic, out) -> out.value(), (topic, b) -> {
      throw new UnsupportedOperationException("the forecaster does not read " + topic);
    });
    ForecastHost host = new ForecastHost(settings.kernel(), validator);
    ForecastKernel kernel = new ForecastKernel(settings.kernel());
    Serde<SpecificRecord> records = serdes.storeValues();
    for (String table : ForecastState.TABLES) {
      builder.addStateStore(store(ForecastStores.of(table), records, kind));
    }
    // the inbox keeps each envelope's bytes as they arrived: a registry-encoded LedgerInput,
    // stored without decoding and encoding it again
    builder.addStateStore(store(ForecastStores.INBOX, bytes, kind));

    // 1. Each input: decoded and checked where it is read; refused records become dead letters
    //    on its own sink, accepted ones go on as envelopes over their own single partition.
    List<KStream<byte[], byte[]>> accepted = new ArrayList<>();
    KStream<byte[], Out> telemetry = builder
        .stream(TopicCatalogue.GPU_TELEMETRY, Consumed.with(bytes, bytes).withName("telemetry-in"))
        .process(() -> new TelemetryStage(serdes, validator, settings.service(), meters),
            Named.as("telemetry-stage"));
    accepted.add(split(telemetry, "telemetry", outs));
    for (Input input : INPUTS) {
      KStream<byte[], Out> intake = builder
          .stream(input.topic(), Consumed.with(bytes, bytes).withName(input.name() + "-in"))
          .process(() -> new InputIntake(input.topic(), input.schema(), host, serdes,
              settings.service(), meters), Named.as(input.name() + "-intake"));
      accepted.add(split(intake, input.name(), outs));
    }
    // a node's scrape per record (ADR 0040), read beside gpu.telemetry during the migration
    KStream<byte[], Out> batches = builder
        .stream(TopicCatalogue.GPU_TELEMETRY_BATCHES,
            Consumed.with(bytes, bytes).withName("telemetry-batches-in"))
        .process(() -> new TelemetryStage(TopicCatalogue.GPU_TELEMETRY_BATCHES, serdes, validator,
            settings.service(), meters), Named.as("telemetry-batches-stage"));
    accepted.add(split(batches, "telemetry-batches", outs));

    // 2. The kernel: one task reads every input's envelopes, decides on the ticks.
    KStream<byte[], byte[]> inputs = accepted.get(0);
    for (int i = 1; i < accepted.size(); i++) {
      inputs = inputs.merge(accepted.get(i), Named.as("inputs-" + i));
    }
    List<String> stores = ForecastStores.all();
    inputs.process(() -> new KernelProcessor(kernel, host, serdes, settings.service(), meters),
            Named.as("forecast-kernel"), stores.toArray(String[]::new))
        // 3. Each effect's record on its topic (and the dead letters of refused inputs).
        .to((key, out, ctx) -> out.topic(), Produced.with(bytes, outs).withName("kernel-out"));
    return builder.build();
  }

  /**
   * An input topic of the kernel besides telemetry: the processor names derive from {@code name}
   * ({@code <name>-in}, {@code <name>-intake}), {@code schema} is the record it must carry.
   */
  record Input(String topic, String name, String schema) {}

  /** The kernel's other inputs, in topic order (the topology's processor order). */
  static final List<Input> INPUTS = List.of(
      new Input(TopicCatalogue.CLUSTER_CLOCK, "clock", "ClockTick"),
      new Input(TopicCatalogue.CLUSTER_INVENTORY, "inventory", "NodeInventory"),
      new Input(FORECAST_HOLIDAYS, "holidays", "Holiday"),
      new Input(TopicCatalogue.JOBS_LIFECYCLE, "lifecycle", "JobLifecycle"),
      new Input(TopicCatalogue.JOBS_SUBMITTED, "jobs", "JobSubmitted"));

  /**
   * Sends an intake's dead letters to their sink and returns its accepted envelopes, moved to a
   * single-partition internal topic of their own.
   */
  private static KStream<byte[], byte[]> split(KStream<byte[], Out> intake, String name,
      Serde<Out> outs) {
    intake.filter((k, out) -> !Envelopes.ACCEPTED.equals(out.topic()),
            Named.as(name + "-refused"))
        .to((key, out, ctx) -> out.topic(), Produced.with(Serdes.ByteArray(), outs)
            .withName(name + "-dead-letters-out"));
    return intake.filter((k, out) -> Envelopes.ACCEPTED.equals(out.topic()),
            Named.as(name + "-accepted"))
        .mapValues(Out::value, Named.as(name + "-envelopes"))
        .repartition(Repartitioned.with(Serdes.ByteArray(), Serdes.ByteArray())
            .withName("forecaster-" + name).withNumberOfPartitions(1));
  }

  private static <V> StoreBuilder<KeyValueStore<String, V>> store(String name, Serde<V> values,
      StoreKind kind) {
    return Stores.keyValueStoreBuilder(kind == StoreKind.PERSISTENT
            ? Stores.persistentKeyValueStore(name) : Stores.inMemoryKeyValueStore(name),
        Serdes.String(), values).withCachingEnabled().withLoggingEnabled(Map.of());
  }

}
