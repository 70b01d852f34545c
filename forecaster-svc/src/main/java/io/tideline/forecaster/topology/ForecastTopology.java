package io.tideline.forecaster.topology;

import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockTick;
import io.tideline.events.Holiday;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeInventory;
import io.tideline.events.SlotClassMap;
import io.tideline.events.SlotForecast;
import io.tideline.forecaster.config.ForecastSettings;
import io.tideline.forecaster.topology.ServiceInput.HolidayChange;
import io.tideline.forecaster.topology.ServiceInput.JobChange;
import io.tideline.forecaster.topology.ServiceInput.NodeChange;
import io.tideline.forecaster.topology.ServiceInput.Tick;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.intake.EventChecks;
import io.tideline.platform.validation.Clip;
import io.tideline.platform.validation.EventValidator;
import io.tideline.platform.validation.InputBounds;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
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
 * The forecaster's Kafka Streams topology (issue #4; F1–F4), built by a static factory so the
 * service and the {@code TopologyTestDriver} tests run the very same graph.
 *
 * <pre>
 *  gpu.telemetry --usage-marker (decode, count per GPU partition)--> service-counts \
 *  cluster.clock --decode--> ticks -----------------------------> service-ticks     \
 *  forecast.holidays --decode--> holiday changes ----------------> service-holidays  +--> planner
 *  jobs.submitted + jobs.lifecycle --decode--> job changes ------> service-jobs     /
 *  cluster.inventory --decode--> node changes -------------------> service-nodes   /
 *  (refused records of any input) --> &lt;topic&gt;.dlq        |
 *                 capacity.reservations, forecast.slots, forecast.slotmap &lt;-----------+
 * </pre>
 *
 * <p>Inputs are read as bytes and decoded in a processor: a record that is not a valid event is
 * parked on {@code <topic>.dlq} with the reason and the topology goes on. The per-service stage
 * reads five single-partition internal topics (counts, ticks, holidays, jobs, nodes), so one task
 * owns every service, the one clock, the whole calendar, the jobs and the fleet; it sees one small record per service per
 * telemetry task per minute, which one partition carries for any fleet. Every store is
 * persistent with a changelog; run it with {@code processing.guarantee=exactly_once_v2}.
 */
public final class ForecastTopology {

  /** Topic of declared holidays (compacted, key = ISO date, tombstone = withdrawn). */
  public static final String FORECAST_HOLIDAYS = "forecast.holidays";
  /** Topic of the daily F4 slot map (key = cluster). */
  public static final String FORECAST_SLOTMAP = "forecast.slotmap";

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
    Serde<String> strings = Serdes.String();
    for (String name : new String[] {ForecastStores.GPUS,
        ForecastStores.SLOT_HISTORY, ForecastStores.POSITIONS, ForecastStores.SLOT_MAP,
        ForecastStores.SERVICE_MINUTES, ForecastStores.CLASS_HISTORY, ForecastStores.JOBS}) {
      builder.addStateStore(store(name, Serdes.ByteArray(), kind));
    }
    builder.addStateStore(store(ForecastStores.TELEMETRY_CLOCK, Serdes.Long(), kind));
    builder.addStateStore(store(ForecastStores.PLANNER_CLOCK, Serdes.Long(), kind));
    builder.addStateStore(store(ForecastStores.NODES, Serdes.Long(), kind));
    builder.addStateStore(store(ForecastStores.HOLIDAYS, Serdes.String(), kind));

    // 1. Decode the three inputs; refused records become dead letters.
    // Telemetry is decoded inside the usage marker (step 2): the hot path, one step less.
    KStream<String, Object> marked = builder
        .stream(TopicCatalogue.GPU_TELEMETRY, Consumed.with(bytes, bytes).withName("telemetry-in"))
        .process(() -> new UsageMarker(settings, meters, new Decoder<>(SampleFacts.class,
            "GpuSample", serdes.telemetry(), validator,
            (topic, key, facts, ts) -> checkSample(validator, facts, ts), settings.service(),
            meters)), Named.as("usage-marker"),
            ForecastStores.GPUS, ForecastStores.TELEMETRY_CLOCK);
    KStream<byte[], Decoded<ClockTick>> ticks = builder
        .stream(TopicCatalogue.CLUSTER_CLOCK, Consumed.with(bytes, bytes)
            .withTimestampExtractor(new ClockTimestamps(serdes.ticks(), validator)).withName("clock-in"))
        .processValues(() -> new DecodeProcessor<>(new Decoder<>(ClockTick.class, serdes.ticks(),
            validator, settings.service(), meters)), Named.as("clock-decode"));
    KStream<byte[], Decoded<Holiday>> holidays = builder
        .stream(FORECAST_HOLIDAYS, Consumed.with(bytes, bytes).withName("holidays-in"))
        .processValues(() -> new DecodeProcessor<>(new Decoder<>(Holiday.class,
            serdes.holidays(), validator, settings.service(), meters)),
            Named.as("holidays-decode"));
    KStream<byte[], Decoded<JobSubmitted>> submissions = builder
        .stream(TopicCatalogue.JOBS_SUBMITTED, Consumed.with(bytes, bytes).withName("jobs-in"))
        .processValues(() -> new DecodeProcessor<>(new Decoder<>(JobSubmitted.class,
            serdes.submissions(), validator, settings.service(), meters)),
            Named.as("jobs-decode"));
    KStream<byte[], Decoded<JobLifecycle>> lifecycle = builder
        .stream(TopicCatalogue.JOBS_LIFECYCLE, Consumed.with(bytes, bytes)
            .withName("lifecycle-in"))
        .processValues(() -> new DecodeProcessor<>(new Decoder<>(JobLifecycle.class,
            serdes.lifecycle(), validator, settings.service(), meters)),
            Named.as("lifecycle-decode"));
    KStream<byte[], Decoded<NodeInventory>> inventory = builder
        .stream(TopicCatalogue.CLUSTER_INVENTORY, Consumed.with(bytes, bytes)
            .withName("inventory-in"))
        .processValues(() -> new DecodeProcessor<>(new Decoder<>(NodeInventory.class,
            serdes.inventory(), validator, settings.service(), meters)),
            Named.as("inventory-decode"));
    // Each input dead-letters on its own sink, so the inputs stay in separate sub-topologies
    // (a shared sink would tie gpu.telemetry's tasks to the clock's single partition).
    marked.filter((k, v) -> v instanceof UsageMarker.Refused, Named.as("telemetry-refused"))
        .map((k, v) -> KeyValue.pair(((UsageMarker.Refused) v).key(),
            ((UsageMarker.Refused) v).letter()), Named.as("telemetry-letters"))
        .to(TopicCatalogue.GPU_TELEMETRY + ".dlq", Produced.with(bytes,
            ForecastSerdes.writeOnly(serdes.deadLetters())).withName("telemetry-dead-letters-out"));
    deadLetters(ticks, "clock", serdes);
    deadLetters(holidays, "holidays", serdes);
    deadLetters(submissions, "jobs", serdes);
    deadLetters(lifecycle, "lifecycle", serdes);
    deadLetters(inventory, "inventory", serdes);

    // 2. Telemetry stage: GPUs in use per service per minute, counted where the samples are.
    KStream<String, ServiceInput> counts = marked
        .filter((k, v) -> v instanceof ServiceInput, Named.as("telemetry-counts"))
        .mapValues(v -> (ServiceInput) v, Named.as("as-count"));
    KStream<String, ServiceInput> tickInputs = ticks
        .filter((k, v) -> !v.refused(), Named.as("clock-accepted"))
        .map((k, v) -> KeyValue.<String, ServiceInput>pair(v.value().getCluster(),
            new Tick(v.value().getCluster(), v.value().getTime().toEpochMilli(),
                v.value().getSequence())), Named.as("clock-ticks"));
    KStream<String, ServiceInput> holidayInputs = holidays
        .filter((k, v) -> !v.refused(), Named.as("holidays-accepted"))
        .map((k, v) -> {
          String date = new String(k, StandardCharsets.UTF_8);
          ServiceInput change = v.tombstone()
              ? new HolidayChange(LocalDate.parse(date), "", false)
              : new HolidayChange(LocalDate.parse(date), v.value().getName(), true);
          return KeyValue.pair(date, change);
        }, Named.as("holiday-changes"));

    // Jobs: class and service at submission, the end from the lifecycle (other facts dropped:
    // only starts and ends change what the forecaster attributes).
    KStream<String, ServiceInput> jobInputs = submissions
        .filter((k, v) -> !v.refused(), Named.as("jobs-accepted"))
        .map((k, v) -> KeyValue.<String, ServiceInput>pair(v.value().getJobId(), new JobChange(
            v.value().getJobId(), v.value().getWorkloadClass().name(),
            v.value().getServiceId() == null ? "" : v.value().getServiceId(), Long.MIN_VALUE)),
            Named.as("job-submissions"))
        .merge(lifecycle
            .filter((k, v) -> !v.refused() && ours(settings, v.value())
                && lifecycleEnd(v.value()) != null, Named.as("lifecycle-accepted"))
            .map((k, v) -> KeyValue.<String, ServiceInput>pair(v.value().getJobId(),
                new JobChange(v.value().getJobId(), "", "", lifecycleEnd(v.value()))),
                Named.as("job-lifecycle")), Named.as("job-changes"));
    // Nodes: the GPUs that can take work (a drained or departed node's cannot). A tombstone is
    // refused by the shared check, as by every consumer: a node leaves with a LEFT event.
    KStream<String, ServiceInput> nodeInputs = inventory
        .filter((k, v) -> !v.refused() && !v.tombstone() && ours(settings, v.value()),
            Named.as("inventory-accepted"))
        .map((k, v) -> {
          String node = v.value().getNodeId();
          int gpus = switch (v.value().getChange()) {
            case JOINED, UPDATED -> v.value().getGpuCount();
            case DRAINED, LEFT -> 0;
          };
          return KeyValue.<String, ServiceInput>pair(node, new NodeChange(node, gpus));
        }, Named.as("node-changes"));

    // 3. Per-service stage on one partition: record minutes, forecast, plan on every tick.
    // Each kind reaches it through its own single-partition internal topic, so one task reads
    // all three and orders them by timestamp (a count's timestamp is its minute's end).
    KStream<String, SpecificRecord> decisions = single(counts, "service-counts")
        .merge(single(tickInputs, "service-ticks"), Named.as("inputs-1"))
        .merge(single(holidayInputs, "service-holidays"), Named.as("inputs-2"))
        .merge(single(jobInputs, "service-jobs"), Named.as("inputs-3"))
        .merge(single(nodeInputs, "service-nodes"), Named.as("inputs-4"))
        .process(() -> new ServicePlanner(settings, meters), Named.as("service-planner"),
            ForecastStores.SLOT_HISTORY, ForecastStores.POSITIONS, ForecastStores.HOLIDAYS,
            ForecastStores.SLOT_MAP, ForecastStores.PLANNER_CLOCK,
            ForecastStores.SERVICE_MINUTES, ForecastStores.CLASS_HISTORY, ForecastStores.JOBS,
            ForecastStores.NODES);

    // 4. Publish each kind of decision on its topic.
    decisions.filter((k, v) -> v instanceof CapacityReservation, Named.as("reservations"))
        .mapValues(v -> (CapacityReservation) v, Named.as("as-reservation"))
        .to(TopicCatalogue.CAPACITY_RESERVATIONS, Produced.with(strings,
            ForecastSerdes.writeOnly(serdes.reservations())).withName("reservations-out"));
    decisions.filter((k, v) -> v instanceof SlotForecast, Named.as("forecasts"))
        .mapValues(v -> (SlotForecast) v, Named.as("as-forecast"))
        .to(TopicCatalogue.FORECAST_SLOTS, Produced.with(strings,
            ForecastSerdes.writeOnly(serdes.forecasts())).withName("forecasts-out"));
    decisions.filter((k, v) -> v instanceof SlotClassMap, Named.as("slot-maps"))
        .mapValues(v -> (SlotClassMap) v, Named.as("as-slot-map"))
        .to(FORECAST_SLOTMAP, Produced.with(strings,
            ForecastSerdes.writeOnly(serdes.slotMaps())).withName("slot-map-out"));
    return builder.build();
  }

  private static KStream<String, ServiceInput> single(KStream<String, ServiceInput> stream,
      String name) {
    return stream.repartition(Repartitioned.with(Serdes.String(), ServiceInput.serde())
        .withName(name).withNumberOfPartitions(1));
  }

  private static <T> void deadLetters(KStream<byte[], Decoded<T>> decoded, String name,
      ForecastSerdes serdes) {
    decoded.filter((k, v) -> v.refused(), Named.as(name + "-refused"))
        .mapValues(Decoded::deadLetter, Named.as(name + "-letters"))
        .to((key, letter, ctx) -> letter.getOriginalTopic() + ".dlq",
            Produced.with(Serdes.ByteArray(), ForecastSerdes.writeOnly(serdes.deadLetters()))
                .withName(name + "-dead-letters-out"));
  }

  private static <V> StoreBuilder<KeyValueStore<String, V>> store(String name, Serde<V> values,
      StoreKind kind) {
    return Stores.keyValueStoreBuilder(kind == StoreKind.PERSISTENT
            ? Stores.persistentKeyValueStore(name) : Stores.inMemoryKeyValueStore(name),
        Serdes.String(), values).withCachingEnabled().withLoggingEnabled(java.util.Map.of());
  }

  /**
   * The shared check of a sample read as {@link SampleFacts}: field by field, the bounds every
   * other consumer of {@code gpu.telemetry} applies to the whole {@code GpuSample}.
   */
  static String checkSample(EventValidator validator, SampleFacts s, long timestamp) {
    String subject = "GpuSample " + Clip.of(s.gpuId()) + ": ";
    if (s.gpuId() == null || s.gpuId().isBlank()) {
      return "GpuSample: gpuId is required";
    }
    for (String[] f : new String[][] {{"gpuId", s.gpuId()}, {"jobId", s.jobId()},
        {"serviceId", s.serviceId()}}) {
      String p = validator.stringProblem("GpuSample", f[0], f[1]);
      if (p != null) {
        return subject + p;
      }
    }
    SampleFacts.Rest rest = s.rest();
    if (rest.longestText() != null
        && rest.longestLength() > validator.maxLength(rest.longestText())) {
      return subject + rest.longestText() + " has " + rest.longestLength()
          + " characters, at most " + validator.maxLength(rest.longestText()) + " allowed";
    }
    String p = validator.numberProblem("GpuSample", "gpuIndex", rest.gpuIndex());
    for (int i = 0; p == null && i < rest.figures().length; i++) {
      p = validator.numberProblem("GpuSample", SampleFacts.Rest.FIGURES[i], rest.figures()[i]);
    }
    if (p == null) {
      String t = validator.timeProblem(Instant.ofEpochMilli(s.sampledAt()),
          timestamp >= 0 ? Instant.ofEpochMilli(timestamp) : null);
      p = t == null ? null : "sampledAt " + t;
    }
    return p == null ? null : subject + p;
  }

  /** Whether an event is about this forecaster's cluster (a blank cluster: the default one). */
  private static boolean ours(ForecastSettings settings, Object event) {
    return settings.cluster().equals(EventChecks.clusterOf(event, settings.cluster()));
  }

  /** The end time of a lifecycle fact that ends a job; MIN_VALUE for a (re)start; else null. */
  static Long lifecycleEnd(JobLifecycle l) {
    return switch (l.getType()) {
      case COMPLETED, FAILED, PREEMPTED -> l.getOccurredAt().toEpochMilli();
      case STARTED, RESUMED -> Long.MIN_VALUE;
      default -> null;
    };
  }

}
