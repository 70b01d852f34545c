package io.tideline.quota.stream;

import io.tideline.platform.security.ProducerStamp;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.GpuReading;
import io.tideline.events.GpuSampleBatch;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import io.tideline.events.BillingUsage;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.JobLifecycle;
import io.tideline.events.LifecycleType;
import io.tideline.events.QuotaState;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.SlotForecast;
import io.tideline.events.Verdict;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.quota.config.QuotaPolicy;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.TidelineInfra;
import io.tideline.testkit.TopologyDrivers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * On a real broker and registry (issue #16 finding 9, #14 point 3): the single writer's state lives
 * in typed, changelogged stores. A Streams instance decides on half a scenario — borrowers, a Q5
 * peak, hours of metering across a slot boundary, inputs left waiting for a tick — and stops; a
 * new instance with an empty state directory restores the stores from the changelogs and decides
 * the rest. Everything it published — every verdict's and queue state's {@code fairShareUsage},
 * every billing amount — is then compared bit for bit with an uninterrupted run of the same
 * topology over the recorded input log ({@code quota.inputs}, what {@code tideline audit replay}
 * re-runs), and so are the stores.
 */
class QuotaRestartTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");
  static final String CLUSTER = QuotaScenario.CLUSTER;
  /**
   * The scenario definition with the search inference queue serving search-api (Q5), on 20 GPUs:
   * with search-api's floor at 7 the pool (20 − 15 = 5) still covers s1's 4 borrowed GPUs.
   */
  static final String DEFINITION = QuotaScenario.DEFINITION.replace(
      "lane: INFERENCE, guaranteedGpus: 4,\n     lendLimitGpus: 0}",
      "lane: INFERENCE, guaranteedGpus: 4,\n     lendLimitGpus: 0, services: [search-api]}")
      .replace("fleetGpus: 16", "fleetGpus: 20");
  static final List<String> OUTPUTS = List.of(TopicCatalogue.QUOTA_VERDICTS,
      TopicCatalogue.QUOTA_STATE, TopicCatalogue.BILLING_USAGE, QuotaTopics.CHANGES,
      QuotaTopics.RECLAIMS);
  static TidelineInfra infra;
  static Map<String, Object> serde;

  @BeforeAll
  static void start() {
    infra = TidelineInfra.start();
    serde = AvroSerdes.serdeConfig(infra.registry().url(), true);
    List<String> topics = new ArrayList<>(QuotaTopics.INPUTS);
    topics.addAll(OUTPUTS);
    topics.add(TopicCatalogue.QUOTA_INPUTS);
    QuotaTopics.INPUTS.forEach(t -> topics.add(t + ".dlq"));
    infra.broker().createTopics(topics.toArray(String[]::new));
  }

  @AfterAll
  static void stop() {
    if (producer != null) {
      producer.close();
    }
    infra.close();
  }

  static QuotaPolicy policy() {
    return QuotaPolicy.defaults(CLUSTER,
        new QuotaPolicy.BootstrapDefinition("file:test-definition", DEFINITION));
  }

  @Test
  void shouldRestoreMidStreamAndPublishBitForBitWhatAnUninterruptedRunPublishes()
      throws Exception {
    assertThat(DEFINITION).isNotEqualTo(QuotaScenario.DEFINITION);
    String appId = KafkaBroker.unique("quota-restart");
    // 1. The first instance: admissions, a peak, two hours of runs billed across 10:00 (PEAK →
    //    FLAT), then a completion left waiting in the inbox (no tick after it).
    KafkaStreams first = streams(appId);
    try {
      tick(T0);
      send(TopicCatalogue.JOBS_SUBMITTED, "g1", JobSubmissions.training("g1").gpus(4).at(T0)
          .build());
      send(TopicCatalogue.JOBS_SUBMITTED, "s1", JobSubmissions.training("s1").gpus(4)
          .at(T0.plusSeconds(60)).build());
      send(TopicCatalogue.JOBS_SUBMITTED, "h1", JobSubmissions.training("h1")
          .tenant("research", "llm").gpus(1).at(T0.plusSeconds(70)).build());
      send(TopicCatalogue.FORECAST_SLOTS, "search-api", peak(10, T0.plusSeconds(90)));
      tick(T0.plusSeconds(100));
      lifecycle("g1", LifecycleType.STARTED, T0.plusSeconds(120));
      lifecycle("s1", LifecycleType.STARTED, T0.plusSeconds(130));
      lifecycle("h1", LifecycleType.STARTED, T0.plusSeconds(130));
      for (int q = 1; q <= 9; q++) {
        tick(T0.plus(Duration.ofMinutes(15L * q)));
        if (q == 4) { // h1's run ends: research's decayed history, restored after the restart
          lifecycle("h1", LifecycleType.COMPLETED, T0.plus(Duration.ofMinutes(61)));
        }
      }
      send(TopicCatalogue.JOBS_SUBMITTED, "q1", JobSubmissions.training("q1").gpus(2)
          .at(T0.plus(Duration.ofMinutes(140))).build());
      tick(T0.plus(Duration.ofMinutes(141)));
      lifecycle("g1", LifecycleType.COMPLETED, T0.plus(Duration.ofMinutes(150)));
      // s1's four GPUs in one node's scrape (ADR 0040): stored once, its GPUs wait after it
      send(TopicCatalogue.GPU_TELEMETRY_BATCHES, "n1", scrape("s1", 4, 35,
          T0.plus(Duration.ofMinutes(151))));
      awaitCaughtUp(appId);
      assertThat(store(first, QuotaTopology.INBOX_STORE))
          .as("a completion and a scrape's four GPUs wait for a tick").hasSize(5);
    } finally {
      // Leave the group so the next instance takes the task over at once.
      first.close(new KafkaStreams.CloseOptions().leaveGroup(true)
          .timeout(Duration.ofSeconds(30)));
    }

    // 2. A second instance with an empty state directory: restored from the changelogs.
    Map<String, Map<String, String>> live;
    try (KafkaStreams second = streams(appId)) {
      lifecycle("s1", LifecycleType.PREEMPTED, T0.plus(Duration.ofMinutes(160)));
      send(TopicCatalogue.JOBS_SUBMITTED, "inf", JobSubmissions.onlineInference("inf",
          "search-api", 1.0).gpus(6).at(T0.plus(Duration.ofMinutes(170))).build());
      // research's verdict and state carry its decayed usage, h1's restored history included
      send(TopicCatalogue.JOBS_SUBMITTED, "r9", JobSubmissions.training("r9")
          .tenant("research", "llm").gpus(1).at(T0.plus(Duration.ofMinutes(170))).build());
      for (int q = 11; q <= 16; q++) {
        tick(T0.plus(Duration.ofMinutes(15L * q)));
      }
      awaitCaughtUp(appId);
      live = stores(second);
    }
    Map<String, List<SpecificRecord>> published = published();

    // 3. The uninterrupted run: the same topology over the recorded input log, from its start.
    Map<String, List<SpecificRecord>> replayed = new TreeMap<>();
    Map<String, Map<String, String>> replayedStores;
    try (TopologyTestDriver driver = TopologyDrivers.start(QuotaTopology.build(policy(), serde,
        QuotaListener.NONE), "quota-replay")) {
      TestInputTopic<byte[], byte[]> log = driver.createInputTopic(TopicCatalogue.QUOTA_INPUTS,
          new ByteArraySerializer(), new ByteArraySerializer());
      for (ConsumerRecord<byte[], byte[]> r : read(TopicCatalogue.QUOTA_INPUTS)) {
        log.pipeInput(new TestRecord<>(r.key(), r.value(), r.headers(),
            Instant.ofEpochMilli(r.timestamp())));
      }
      var reader = AvroSerdes.valueDeserializer(serde);
      for (String topic : OUTPUTS) {
        List<SpecificRecord> out = new ArrayList<>();
        driver.createOutputTopic(topic, new ByteArrayDeserializer(), new ByteArrayDeserializer())
            .readValuesToList().forEach(v -> out.add((SpecificRecord) reader.deserialize(topic,
                v)));
        replayed.put(topic, out);
      }
      replayedStores = new TreeMap<>();
      for (String name : QuotaTopology.ALL_STORES) {
        KeyValueStore<String, byte[]> s = driver.getKeyValueStore(name);
        Map<String, String> entries = new TreeMap<>();
        try (var it = s.all()) {
          it.forEachRemaining(kv -> entries.put(kv.key, Base64.getEncoder()
              .encodeToString(kv.value)));
        }
        replayedStores.put(name, entries);
      }
    }

    // 4. Bit for bit: every record, and the published doubles by their bits.
    assertThat(published.get(TopicCatalogue.BILLING_USAGE)).hasSizeGreaterThanOrEqualTo(4);
    assertThat(published).isEqualTo(replayed);
    assertThat(bits(published)).isEqualTo(bits(replayed));
    assertThat(live).isEqualTo(replayedStores);
    // and the restored instance decided on the restored state: the completion that waited in the
    // inbox released g1's floor, so preempted s1 (P3: guaranteed quota only) went back on it;
    // inf was admitted on the restored Q5 floor of 7
    List<QuotaVerdict> verdicts = published.get(TopicCatalogue.QUOTA_VERDICTS).stream()
        .map(QuotaVerdict.class::cast).toList();
    assertThat(verdicts).filteredOn(v -> v.getJobId().equals("inf")).singleElement()
        .satisfies(v -> assertThat(v.getVerdict()).isEqualTo(Verdict.GUARANTEED));
    assertThat(verdicts).filteredOn(v -> v.getJobId().equals("s1")).last().satisfies(v -> {
      assertThat(v.getVerdict()).isEqualTo(Verdict.GUARANTEED);
      assertThat(v.getDecidedAt()).isAfter(T0.plus(Duration.ofMinutes(160)));
    });
  }

  /** Every published fairShareUsage and billing amount, as raw bits, in order, per topic. */
  static Map<String, List<Long>> bits(Map<String, List<SpecificRecord>> records) {
    Map<String, List<Long>> out = new TreeMap<>();
    records.forEach((topic, list) -> {
      List<Long> b = new ArrayList<>();
      for (SpecificRecord r : list) {
        if (r instanceof QuotaVerdict v) {
          b.add(Double.doubleToRawLongBits(v.getFairShareUsage()));
        } else if (r instanceof QuotaState s) {
          b.add(Double.doubleToRawLongBits(s.getFairShareUsage()));
        } else if (r instanceof BillingUsage u) {
          b.add(Double.doubleToRawLongBits(u.getAmount()));
          b.add(Double.doubleToRawLongBits(u.getGpuSeconds()));
        }
      }
      out.put(topic, b);
    });
    return out;
  }

  // ------------------------------------------------------------------------------- helpers

  private static KafkaStreams streams(String appId) throws Exception {
    Path dir = Files.createTempDirectory("quota-streams-");
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(StreamsConfig.STATE_DIR_CONFIG, dir.toString());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    KafkaStreams s = new KafkaStreams(QuotaTopology.build(policy(), serde, QuotaListener.NONE), p);
    s.start();
    return s;
  }

  /** Every entry of every store (values base64), once the instance is running. */
  private static Map<String, Map<String, String>> stores(KafkaStreams s) throws Exception {
    Map<String, Map<String, String>> all = new TreeMap<>();
    for (String name : QuotaTopology.ALL_STORES) {
      all.put(name, store(s, name));
    }
    return all;
  }

  private static Map<String, String> store(KafkaStreams s, String name) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (true) {
      try {
        ReadOnlyKeyValueStore<String, byte[]> store = s.store(StoreQueryParameters
            .fromNameAndType(name, QueryableStoreTypes.<String, byte[]>keyValueStore()));
        Map<String, String> entries = new TreeMap<>();
        try (var it = store.all()) {
          it.forEachRemaining(kv -> entries.put(kv.key, Base64.getEncoder()
              .encodeToString(kv.value)));
        }
        return entries;
      } catch (org.apache.kafka.streams.errors.InvalidStateStoreException e) {
        assertThat(System.nanoTime()).as("store " + name + " of " + s.state())
            .isLessThan(deadline);
        Thread.sleep(200);
      }
    }
  }

  /** Waits until the application has committed every record of its inputs and its log. */
  private static void awaitCaughtUp(String appId) throws Exception {
    List<String> topics = new ArrayList<>(QuotaTopics.INPUTS);
    topics.add(TopicCatalogue.QUOTA_INPUTS);
    await(() -> {
      Map<TopicPartition, OffsetAndMetadata> committed;
      try (var admin = infra.broker().admin()) {
        committed = admin.listConsumerGroupOffsets(appId).partitionsToOffsetAndMetadata().get();
      } catch (Exception e) {
        return "the group's offsets (" + e.getMessage() + ")";
      }
      for (String topic : topics) {
        try (var c = consumer()) {
          var parts = c.partitionsFor(topic).stream().map(i -> new TopicPartition(topic,
              i.partition())).toList();
          for (var e : c.endOffsets(parts).entrySet()) {
            OffsetAndMetadata o = committed.get(e.getKey());
            if (e.getValue() > 0 && (o == null || o.offset() < e.getValue())) {
              return e.getKey() + " up to " + e.getValue() + " (at " + o + ")";
            }
          }
        }
      }
      return null;
    });
  }

  private static void await(Supplier<String> pending) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    String missing;
    while ((missing = pending.get()) != null) {
      assertThat(System.nanoTime()).as("waiting for " + missing).isLessThan(deadline);
      Thread.sleep(200);
    }
  }

  /** Everything the live instances published (committed), decoded, per topic in offset order. */
  private static Map<String, List<SpecificRecord>> published() {
    var reader = AvroSerdes.valueDeserializer(serde);
    Map<String, List<SpecificRecord>> out = new TreeMap<>();
    for (String topic : OUTPUTS) {
      List<SpecificRecord> list = new ArrayList<>();
      read(topic).forEach(r -> list.add((SpecificRecord) reader.deserialize(topic, r.value())));
      out.put(topic, list);
    }
    return out;
  }

  /** Every committed record of a (single-writer) topic, partition by partition, in order. */
  private static List<ConsumerRecord<byte[], byte[]>> read(String topic) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (var c = consumer()) {
      var parts = c.partitionsFor(topic).stream().map(i -> new TopicPartition(topic,
          i.partition())).sorted(java.util.Comparator.comparingInt(TopicPartition::partition))
          .toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (parts.stream().anyMatch(p -> c.position(p) < end.get(p))
          && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
    out.sort(java.util.Comparator.comparingInt((ConsumerRecord<byte[], byte[]> r) ->
        r.partition()).thenComparingLong(ConsumerRecord::offset));
    return out;
  }

  private static KafkaConsumer<byte[], byte[]> consumer() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  private static SlotForecast peak(double gpus, Instant at) {
    return SlotForecast.newBuilder().setServiceId("search-api").setSlotStart(at)
        .setSlotEnd(at.plusSeconds(900)).setHoliday(false).setP50(gpus / 2).setP90(gpus)
        .setP95(gpus).setP99(gpus).setHistoricalPeak(gpus).setSampleDays(14).setComputedAt(at)
        .build();
  }

  private static void tick(Instant at) {
    send(TopicCatalogue.CLUSTER_CLOCK, CLUSTER, ClockTick.newBuilder().setCluster(CLUSTER)
        .setTime(at).setSequence(at.getEpochSecond()).setIntervalMillis(1000)
        .setSource(ClockSource.SIMULATED).build());
  }

  private static void lifecycle(String job, LifecycleType type, Instant at) {
    send(TopicCatalogue.JOBS_LIFECYCLE, job, JobLifecycle.newBuilder().setJobId(job)
        .setCluster(CLUSTER).setType(type).setOccurredAt(at).build());
  }

  private static KafkaProducer<String, SpecificRecord> producer;

  /** One scrape of node n1: {@code gpus} GPUs of {@code job} at {@code pct} percent. */
  static GpuSampleBatch scrape(String job, int gpus, double pct, Instant at) {
    List<GpuReading> readings = new ArrayList<>();
    for (int g = 0; g < gpus; g++) {
      readings.add(GpuReading.newBuilder().setGpuId("n1/" + g).setGpuIndex(g)
          .setState(SampleState.OK).setUtilizationPct(pct + g).setJobId(job).build());
    }
    return GpuSampleBatch.newBuilder().setCluster(CLUSTER).setNodeId("n1").setSampledAt(at)
        .setSource(SampleSource.SIMULATOR).setGpus(readings).build();
  }

  private static void send(String topic, String key, SpecificRecord value) {
    if (producer == null) {
      Properties p = new Properties();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
      p.put(ProducerConfig.ACKS_CONFIG, "all");
      ProducerStamp.configureAsOwners(p); // each input as its real producer stamps it (ADR 0029)
      producer = new KafkaProducer<>(p, new StringSerializer(), AvroSerdes.valueSerializer(serde));
    }
    try {
      producer.send(new ProducerRecord<>(topic, key, value)).get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
