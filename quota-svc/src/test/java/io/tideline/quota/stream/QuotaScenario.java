package io.tideline.quota.stream;

import io.tideline.platform.security.Provenance;
import org.apache.kafka.streams.test.TestRecord;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.GpuReading;
import io.tideline.events.GpuSample;
import io.tideline.events.GpuSampleBatch;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.QuotaConfigDocument;
import io.tideline.events.QuotaConfigFormat;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import io.tideline.events.SlotForecast;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.quota.config.QuotaPolicy;
import io.tideline.testkit.TopologyDrivers;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A {@link TopologyTestDriver} around the quota topology with a real schema registry: typed
 * helpers to publish inputs at explicit event times and read what the service published.
 */
final class QuotaScenario implements AutoCloseable {

  static final String CLUSTER = "c1";

  /**
   * A 16-GPU fleet: search (floor 8, borrow cap 4, may preempt with online inference and critical
   * jobs) and research (floor 4, no preemption rights); the shared pool is 16 − 12 = 4 GPUs plus
   * the idle floors their owners lend.
   */
  static final String DEFINITION = """
      version: "test-1"
      fleetGpus: 16
      nodes:
        - {path: acme, kind: ORGANISATION, guaranteedGpus: 12}
        - {path: acme/search, kind: BUSINESS_LINE, guaranteedGpus: 8, borrowCapGpus: 4,
           preemptionGrants: [ONLINE_INFERENCE, CRITICAL_JOBS]}
        - {path: acme/search/ranking, kind: TEAM, guaranteedGpus: 8}
        - {path: acme/search/ranking/inference, kind: QUEUE, lane: INFERENCE, guaranteedGpus: 4,
           lendLimitGpus: 0}
        - {path: acme/search/ranking/training, kind: QUEUE, lane: TRAINING, guaranteedGpus: 4,
           lendLimitGpus: 0}
        - {path: acme/research, kind: BUSINESS_LINE, guaranteedGpus: 4, preemptionGrants: []}
        - {path: acme/research/llm, kind: TEAM, guaranteedGpus: 4}
        - {path: acme/research/llm/training, kind: QUEUE, lane: TRAINING, guaranteedGpus: 4,
           lendLimitGpus: 0}
      """;

  private final TopologyTestDriver driver;
  private final Map<String, Object> serde;
  private final Serializer<SpecificRecord> avro;
  private final Deserializer<Object> reader;

  QuotaScenario(String registryUrl) {
    this(registryUrl, DEFINITION);
  }

  QuotaScenario(String registryUrl, String bootstrap) {
    serde = AvroSerdes.serdeConfig(registryUrl, true);
    avro = AvroSerdes.valueSerializer(serde);
    reader = AvroSerdes.valueDeserializer(serde);
    QuotaPolicy policy = QuotaPolicy.defaults(CLUSTER,
        new QuotaPolicy.BootstrapDefinition("file:test-definition", bootstrap));
    driver = TopologyDrivers.start(QuotaTopology.build(policy, serde, QuotaListener.NONE),
        "quota-svc-test");
  }

  // ------------------------------------------------------------------ inputs

  void submit(JobSubmitted job) {
    send(TopicCatalogue.JOBS_SUBMITTED, job.getJobId(), avro(TopicCatalogue.JOBS_SUBMITTED, job),
        job.getSubmittedAt());
  }

  void lifecycle(String jobId, LifecycleType type, Instant at) {
    JobLifecycle l = JobLifecycle.newBuilder().setJobId(jobId).setCluster(CLUSTER).setType(type)
        .setOccurredAt(at).build();
    send(TopicCatalogue.JOBS_LIFECYCLE, jobId, avro(TopicCatalogue.JOBS_LIFECYCLE, l), at);
  }

  /** A clock tick: the writer decides on the inputs timed strictly before {@code at}. */
  void tick(Instant at) {
    ClockTick t = ClockTick.newBuilder().setCluster(CLUSTER).setTime(at).setSequence(
        at.getEpochSecond()).setIntervalMillis(10_000).setSource(ClockSource.SIMULATED).build();
    send(TopicCatalogue.CLUSTER_CLOCK, CLUSTER, avro(TopicCatalogue.CLUSTER_CLOCK, t), at);
  }

  void peak(String service, double peakGpus, Instant at) {
    SlotForecast f = SlotForecast.newBuilder().setServiceId(service).setSlotStart(at)
        .setSlotEnd(at.plusSeconds(900)).setHoliday(false).setP50(peakGpus / 2).setP90(peakGpus)
        .setP95(peakGpus).setP99(peakGpus).setHistoricalPeak(peakGpus).setSampleDays(14)
        .setComputedAt(at).build();
    send(TopicCatalogue.FORECAST_SLOTS, service, avro(TopicCatalogue.FORECAST_SLOTS, f), at);
  }

  void utilisation(String jobId, int gpuIndex, double pct, Instant at) {
    GpuSample s = GpuSample.newBuilder().setGpuId("n1/" + gpuIndex).setCluster(CLUSTER)
        .setNodeId("n1").setGpuIndex(gpuIndex).setSampledAt(at).setState(SampleState.OK)
        .setUtilizationPct(pct).setJobId(jobId).setSource(SampleSource.SIMULATOR).build();
    send(TopicCatalogue.GPU_TELEMETRY, s.getGpuId(), avro(TopicCatalogue.GPU_TELEMETRY, s), at);
  }

  /**
   * The utilisation of {@code gpus} GPUs of node n1 (indexes 0..) in one scrape: one batch on
   * {@code gpu.telemetry.batches} (ADR 0040), the same GPUs {@link #utilisation} sends one by one.
   */
  void utilisationBatch(String jobId, int gpus, double pct, Instant at) {
    List<GpuReading> readings = new ArrayList<>();
    for (int g = 0; g < gpus; g++) {
      readings.add(GpuReading.newBuilder().setGpuId("n1/" + g).setGpuIndex(g)
          .setState(SampleState.OK).setUtilizationPct(pct).setJobId(jobId).build());
    }
    GpuSampleBatch b = GpuSampleBatch.newBuilder().setCluster(CLUSTER).setNodeId("n1")
        .setSampledAt(at).setSource(SampleSource.SIMULATOR).setGpus(readings).build();
    send(TopicCatalogue.GPU_TELEMETRY_BATCHES, "n1",
        avro(TopicCatalogue.GPU_TELEMETRY_BATCHES, b), at);
  }

  void definition(String version, String document, Instant at) {
    definitionAs(Provenance.ownerOf(QuotaTopics.CONFIG), version, document, at);
  }

  /** A quota document written by {@code producer} ({@code null}: without a stamp). */
  void definitionAs(String producer, String version, String document, Instant at) {
    QuotaConfigDocument d = QuotaConfigDocument.newBuilder().setCluster(CLUSTER)
        .setVersion(version).setFormat(QuotaConfigFormat.YAML).setDocument(document)
        .setAuthor("ops").setPublishedAt(at).build();
    send(QuotaTopics.CONFIG, CLUSTER, avro(QuotaTopics.CONFIG, d), at, producer);
  }

  void raw(String topic, String key, byte[] value, Instant at) {
    send(topic, key, value, at);
  }

  private byte[] avro(String topic, SpecificRecord r) {
    return avro.serialize(topic, r);
  }

  /** Written by the topic's owner, stamped as its producer would (ADR 0029). */
  private void send(String topic, String key, byte[] value, Instant at) {
    send(topic, key, value, at, Provenance.ownerOf(topic));
  }

  private void send(String topic, String key, byte[] value, Instant at, String producer) {
    TestInputTopic<byte[], byte[]> in = driver.createInputTopic(topic, new ByteArraySerializer(),
        new ByteArraySerializer());
    in.pipeInput(new TestRecord<>(key.getBytes(StandardCharsets.UTF_8), value,
        Provenance.stampOf(producer), at));
  }

  // ------------------------------------------------------------------ outputs

  /** Everything published on {@code topic} since the last read of it. */
  @SuppressWarnings("unchecked")
  <T> List<T> read(String topic) {
    TestOutputTopic<String, Object> out = driver.createOutputTopic(topic, new StringDeserializer(),
        reader);
    List<T> values = new ArrayList<>();
    out.readValuesToList().forEach(v -> values.add((T) v));
    return values;
  }

  /** A store of the writer, its values decoded as the typed store records they are. */
  <T extends SpecificRecord> T stored(String store, String key, Class<T> type) {
    KeyValueStore<String, byte[]> s = driver.getKeyValueStore(store);
    byte[] v = s.get(key);
    return v == null ? null : io.tideline.platform.kernel.StoreRecords.decode(type, v);
  }

  @Override
  public void close() {
    driver.close();
  }
}
