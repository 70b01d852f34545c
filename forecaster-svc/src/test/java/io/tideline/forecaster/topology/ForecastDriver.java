package io.tideline.forecaster.topology;

import io.tideline.platform.security.Provenance;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.DeadLetter;
import io.tideline.events.GpuSample;
import io.tideline.events.GpuSampleBatch;
import io.tideline.platform.telemetry.SampleBatches;
import io.tideline.events.Holiday;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeInventory;
import io.tideline.events.SwitchPath;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import io.tideline.events.SlotClassMap;
import io.tideline.events.SlotForecast;
import io.tideline.forecaster.config.ForecastSettings;
import io.tideline.forecaster.query.ForecastQueries;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.validation.InputBounds;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * The forecast topology in a {@code TopologyTestDriver} with the real registry serdes, and the
 * builders a scenario needs: GPU samples per service per minute, clock ticks and holidays, all
 * with explicit event times. One driver per scenario (fresh state directory under target/).
 */
final class ForecastDriver implements AutoCloseable {

  static final String CLUSTER = "default";

  final ForecastSettings settings;
  final TopologyTestDriver driver;
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final ForecastMeters meters = new ForecastMeters(registry);
  private final Serializer<Object> avro;
  private final TestInputTopic<byte[], byte[]> telemetry;
  private final TestInputTopic<byte[], byte[]> batches;
  private final TestInputTopic<byte[], byte[]> clock;
  private final TestInputTopic<byte[], byte[]> holidays;
  private final TestInputTopic<byte[], byte[]> submissions;
  private final TestInputTopic<byte[], byte[]> lifecycle;
  private final TestInputTopic<byte[], byte[]> inventory;
  private final TestOutputTopic<String, CapacityReservation> reservations;
  private final TestOutputTopic<String, SlotForecast> forecasts;
  private final TestOutputTopic<String, SlotClassMap> slotMaps;
  private final Deserializer<DeadLetter> letters;
  private final Map<String, Object> serdeConfig;
  private long sequence;
  private Instant lastTick;

  ForecastDriver(String registryUrl, ForecastSettings settings) {
    this(registryUrl, settings, InputBounds.DEFAULTS);
  }

  /** A driver whose topology holds its inputs to {@code bounds} ({@code tideline.intake.*}). */
  ForecastDriver(String registryUrl, ForecastSettings settings, InputBounds bounds) {
    this.settings = settings;
    this.serdeConfig = AvroSerdes.serdeConfig(registryUrl, true);
    this.avro = AvroSerdes.valueSerializer(serdeConfig);
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "forecaster-test");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    // The service runs exactly_once_v2; here at-least-once, because the test driver commits
    // after every record and under EOS also fsyncs a checkpoint each time (minutes per test).
    // The guarantee changes when offsets are committed, not what the topology outputs.
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
    try {
      p.put(StreamsConfig.STATE_DIR_CONFIG,
          Files.createTempDirectory("forecaster-ttd-").toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    driver = new TopologyTestDriver(ForecastTopology.build(settings,
        ForecastSerdes.fromRegistry(serdeConfig), meters, ForecastTopology.StoreKind.IN_MEMORY,
        bounds), p);
    ByteArraySerializer bytes = new ByteArraySerializer();
    telemetry = driver.createInputTopic(TopicCatalogue.GPU_TELEMETRY, bytes, bytes);
    batches = driver.createInputTopic(TopicCatalogue.GPU_TELEMETRY_BATCHES, bytes, bytes);
    clock = driver.createInputTopic(TopicCatalogue.CLUSTER_CLOCK, bytes, bytes);
    holidays = driver.createInputTopic(ForecastTopology.FORECAST_HOLIDAYS, bytes, bytes);
    submissions = driver.createInputTopic(TopicCatalogue.JOBS_SUBMITTED, bytes, bytes);
    lifecycle = driver.createInputTopic(TopicCatalogue.JOBS_LIFECYCLE, bytes, bytes);
    inventory = driver.createInputTopic(TopicCatalogue.CLUSTER_INVENTORY, bytes, bytes);
    StringDeserializer strings = new StringDeserializer();
    reservations = driver.createOutputTopic(TopicCatalogue.CAPACITY_RESERVATIONS, strings,
        AvroSerdes.valueDeserializer(serdeConfig));
    forecasts = driver.createOutputTopic(TopicCatalogue.FORECAST_SLOTS, strings,
        AvroSerdes.valueDeserializer(serdeConfig));
    slotMaps = driver.createOutputTopic(ForecastTopology.FORECAST_SLOTMAP, strings,
        AvroSerdes.valueDeserializer(serdeConfig));
    letters = AvroSerdes.valueDeserializer(serdeConfig);
  }

  /** A GPU sample of {@code gpuId}, attributed to {@code serviceId} (null: idle). */
  static GpuSample sample(String gpuId, String serviceId, Instant at, SampleState state) {
    return GpuSample.newBuilder()
        .setGpuId(gpuId).setCluster(CLUSTER).setNodeId("node-" + gpuId).setGpuIndex(0)
        .setSampledAt(at).setState(state)
        .setUtilizationPct(state == SampleState.OK ? 80.0 : null)
        .setServiceId(serviceId).setJobId(serviceId == null ? null : serviceId + "-instance")
        .setSource(SampleSource.SIMULATOR)
        .build();
  }

  void send(GpuSample sample) {
    telemetry.pipeInput(sample.getGpuId().getBytes(StandardCharsets.UTF_8),
        avro.serialize(TopicCatalogue.GPU_TELEMETRY, sample), sample.getSampledAt());
  }

  /** A node's scrape on {@code gpu.telemetry.batches} (ADR 0040), stamped its sampledAt. */
  void send(GpuSampleBatch batch) {
    batches.pipeInput(batch.getNodeId().getBytes(StandardCharsets.UTF_8),
        avro.serialize(TopicCatalogue.GPU_TELEMETRY_BATCHES, batch), batch.getSampledAt());
  }

  void sendRawBatch(byte[] key, byte[] value, Instant at) {
    batches.pipeInput(key, value, at);
  }

  /**
   * As {@link #usage}, on nodes of 8 GPUs ({@code node-<service>-<g / 8>}, the idle ones on
   * {@code node-spare-<g / 8>}): each minute's samples one by one on {@code gpu.telemetry}, or,
   * {@code batched}, as one batch per node on {@code gpu.telemetry.batches}.
   */
  void usageOnNodes(String service, int gpus, Instant from, int minutes, int idle,
      boolean batched) {
    for (int m = 0; m < minutes; m++) {
      tick(from.plus(Duration.ofMinutes(m)));
      Instant at = from.plus(Duration.ofMinutes(m)).plusSeconds(30);
      List<GpuSample> scrape = new ArrayList<>();
      for (int g = 0; g < gpus; g++) {
        GpuSample s = sample(service + "-gpu-" + g, service, at, SampleState.OK);
        s.setNodeId("node-" + service + "-" + g / 8);
        s.setGpuIndex(g % 8);
        scrape.add(s);
      }
      for (int g = 0; g < idle; g++) {
        GpuSample s = sample("spare-gpu-" + g, null, at, SampleState.OK);
        s.setNodeId("node-spare-" + g / 8);
        s.setGpuIndex(g % 8);
        scrape.add(s);
      }
      if (batched) {
        SampleBatches.ofScrape(scrape, 64).forEach(this::send);
      } else {
        scrape.forEach(this::send);
      }
    }
  }

  void sendRawTelemetry(byte[] key, byte[] value, Instant at) {
    telemetry.pipeInput(key, value, at);
  }

  void sendRawClock(byte[] value, Instant at) {
    clock.pipeInput(CLUSTER.getBytes(StandardCharsets.UTF_8), value, at);
  }

  void sendRawHoliday(String key, byte[] value, Instant at) {
    holidays.pipeInput(key == null ? null : key.getBytes(StandardCharsets.UTF_8), value, at);
  }

  /**
   * {@code gpus} GPUs of {@code service} in use every minute of {@code [from, from + minutes)},
   * one sample per GPU per minute at second 30, plus {@code idle} idle GPUs; a clock tick at the
   * start of each of those minutes (the forecaster decides on ticks only, and refuses samples
   * timed far ahead of its clock). No tick at {@code from + minutes}: the scenario ticks on.
   */
  void usage(String service, int gpus, Instant from, int minutes, int idle) {
    for (int m = 0; m < minutes; m++) {
      tick(from.plus(Duration.ofMinutes(m)));
      Instant at = from.plus(Duration.ofMinutes(m)).plusSeconds(30);
      for (int g = 0; g < gpus; g++) {
        send(sample(service + "-gpu-" + g, service, at, SampleState.OK));
      }
      for (int g = 0; g < idle; g++) {
        send(sample("spare-gpu-" + g, null, at, SampleState.OK));
      }
    }
  }

  /** A clock tick of this cluster at {@code at} (none if the clock is already there). */
  void tick(Instant at) {
    if (lastTick != null && !at.isAfter(lastTick)) {
      return;
    }
    lastTick = at;
    ClockTick t = ClockTick.newBuilder().setCluster(CLUSTER).setTime(at)
        .setSequence(++sequence).setIntervalMillis(10_000).setSource(ClockSource.SIMULATED)
        .build();
    clock.pipeInput(CLUSTER.getBytes(StandardCharsets.UTF_8),
        avro.serialize(TopicCatalogue.CLUSTER_CLOCK, t), at);
  }

  /**
   * A tick of this cluster at {@code time} on a record stamped {@code recordTime} (a producer
   * whose clock is off, or a hostile one); the scenario's own clock is not moved.
   */
  void tickStamped(Instant time, Instant recordTime) {
    ClockTick t = ClockTick.newBuilder().setCluster(CLUSTER).setTime(time)
        .setSequence(++sequence).setIntervalMillis(10_000).setSource(ClockSource.SIMULATED)
        .build();
    clock.pipeInput(CLUSTER.getBytes(StandardCharsets.UTF_8),
        avro.serialize(TopicCatalogue.CLUSTER_CLOCK, t), recordTime);
  }

  /** Ticks every 10 s from {@code from} to {@code to} inclusive. */
  void ticks(Instant from, Instant to) {
    for (Instant t = from; !t.isAfter(to); t = t.plusSeconds(10)) {
      tick(t);
    }
  }

  /** Records every minute of usage sent before {@code at}: a tick past their grace. */
  void settle(Instant at) {
    tick(at.plusSeconds(90));
  }

  /** A GPU sample of {@code gpuId} held by {@code jobId} (no service: training or batch). */
  static GpuSample jobSample(String gpuId, String jobId, Instant at, SampleState state) {
    return GpuSample.newBuilder()
        .setGpuId(gpuId).setCluster(CLUSTER).setNodeId("node-" + gpuId).setGpuIndex(0)
        .setSampledAt(at).setState(state)
        .setUtilizationPct(state == SampleState.OK ? 80.0 : null)
        .setJobId(jobId).setSource(SampleSource.SIMULATOR)
        .build();
  }

  void submit(JobSubmitted job) {
    submissions.pipeInput(job.getJobId().getBytes(StandardCharsets.UTF_8),
        avro.serialize(TopicCatalogue.JOBS_SUBMITTED, job), job.getSubmittedAt());
  }

  void lifecycle(String jobId, LifecycleType type, Instant at) {
    JobLifecycle l = JobLifecycle.newBuilder().setJobId(jobId).setCluster(CLUSTER).setType(type)
        .setOccurredAt(at).build();
    lifecycleAs(Provenance.ownerOf(TopicCatalogue.JOBS_LIFECYCLE), l, at);
  }

  /** A lifecycle fact written by {@code producer} ({@code null}: without a stamp). */
  void lifecycleAs(String producer, JobLifecycle l, Instant at) {
    lifecycle.pipeInput(new org.apache.kafka.streams.test.TestRecord<>(
        l.getJobId().getBytes(StandardCharsets.UTF_8),
        avro.serialize(TopicCatalogue.JOBS_LIFECYCLE, l), Provenance.stampOf(producer), at));
  }

  /** A node of {@code gpus} GPUs joins ({@code change} JOINED) or changes. */
  void node(String nodeId, int gpus, NodeChange change, Instant at) {
    NodeInventory n = NodeInventory.newBuilder().setCluster(CLUSTER).setNodeId(nodeId)
        .setChange(change).setObservedAt(at).setGpuModel("H100").setGpuMemoryMiB(81920)
        .setGpuCount(gpus)
        .setSwitchPath(SwitchPath.newBuilder().setAccessSwitch("asw1")
            .setAggregationSwitch("psw1").setCoreSwitch("dsw1").build())
        .build();
    inventory.pipeInput(nodeId.getBytes(StandardCharsets.UTF_8),
        avro.serialize(TopicCatalogue.CLUSTER_INVENTORY, n), at);
  }

  void sendRawInventory(String key, byte[] value, Instant at) {
    inventory.pipeInput(key == null ? null : key.getBytes(StandardCharsets.UTF_8), value, at);
  }

  void declareHoliday(LocalDate date, Instant at) {
    Holiday h = Holiday.newBuilder().setDate(date.toString()).setName("holiday " + date)
        .setDeclaredAt(at).build();
    holidays.pipeInput(date.toString().getBytes(StandardCharsets.UTF_8),
        avro.serialize(ForecastTopology.FORECAST_HOLIDAYS, h), at);
  }

  List<CapacityReservation> reservations() {
    return reservations.readValuesToList();
  }

  List<SlotForecast> forecasts() {
    return forecasts.readValuesToList();
  }

  List<SlotClassMap> slotMaps() {
    return slotMaps.readValuesToList();
  }

  List<DeadLetter> deadLetters(String topic) {
    TestOutputTopic<byte[], byte[]> out = driver.createOutputTopic(topic + ".dlq",
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
    List<DeadLetter> list = new ArrayList<>();
    out.readValuesToList().forEach(v -> list.add(letters.deserialize(topic + ".dlq", v)));
    return list;
  }

  ForecastQueries queries() {
    return new ForecastQueries(settings, name -> driver.getKeyValueStore(name));
  }

  @Override
  public void close() {
    driver.close();
  }

}
