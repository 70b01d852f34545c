package io.tideline.quota.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.SlotForecast;
import io.tideline.events.Verdict;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.quota.config.QuotaPolicy;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.TidelineInfra;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * On a real broker and registry: the single writer's state lives in its changelogs. A Streams
 * instance admits jobs and stops; a new instance with an empty state directory rebuilds the stores
 * from the changelogs, holds exactly the same entries, and keeps deciding from them.
 */
class QuotaRestartTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");
  /**
   * The scenario definition with the search inference queue serving search-api (Q5), on 20 GPUs:
   * with search-api's floor at 7 the pool (20 − 15 = 5) still covers s1's 4 borrowed GPUs.
   */
  static final String DEFINITION = QuotaScenario.DEFINITION.replace(
      "lane: INFERENCE, guaranteedGpus: 4,\n     lendLimitGpus: 0}",
      "lane: INFERENCE, guaranteedGpus: 4,\n     lendLimitGpus: 0, services: [search-api]}")
      .replace("fleetGpus: 16", "fleetGpus: 20");
  static TidelineInfra infra;
  static Map<String, Object> serde;

  @BeforeAll
  static void start() {
    infra = TidelineInfra.start();
    serde = AvroSerdes.serdeConfig(infra.registry().url(), true);
    List<String> topics = new ArrayList<>(QuotaTopics.INPUTS);
    topics.addAll(List.of(TopicCatalogue.QUOTA_VERDICTS, TopicCatalogue.QUOTA_STATE,
        TopicCatalogue.BILLING_USAGE, QuotaTopics.CHANGES, QuotaTopics.RECLAIMS,
        TopicCatalogue.QUOTA_INPUTS));
    QuotaTopics.INPUTS.forEach(t -> topics.add(t + ".dlq"));
    infra.broker().createTopics(topics.toArray(String[]::new));
  }

  @AfterAll
  static void stop() {
    infra.close();
  }

  @Test
  void shouldRebuildTheSameStateFromTheChangelogWithAFreshStateDirectory() throws Exception {
    assertThat(DEFINITION).isNotEqualTo(QuotaScenario.DEFINITION);
    String appId = KafkaBroker.unique("quota-restart");
    Map<String, Map<String, String>> before;
    KafkaStreams first = streams(appId);
    try {
      send(TopicCatalogue.JOBS_SUBMITTED, "g1", JobSubmissions.training("g1").gpus(4).at(T0)
          .build());
      send(TopicCatalogue.JOBS_SUBMITTED, "s1", JobSubmissions.training("s1").gpus(4)
          .at(T0.plusSeconds(60)).build());
      // Q5: search-api's peak 10 → its queue's floor in force is ceil(7) instead of 4.
      send(TopicCatalogue.FORECAST_SLOTS, "search-api", SlotForecast.newBuilder()
          .setServiceId("search-api").setSlotStart(T0).setSlotEnd(T0.plusSeconds(900))
          .setHoliday(false).setP50(5).setP90(9).setP95(10).setP99(10).setHistoricalPeak(10)
          .setSampleDays(14).setComputedAt(T0.plusSeconds(90)).build());
      send(TopicCatalogue.JOBS_LIFECYCLE, "g1", JobLifecycle.newBuilder().setJobId("g1")
          .setCluster(QuotaScenario.CLUSTER).setType(LifecycleType.STARTED)
          .setOccurredAt(T0.plusSeconds(120)).build());
      assertThat(verdicts(2)).extracting(QuotaVerdict::getVerdict)
          .containsExactly(Verdict.GUARANTEED, Verdict.SHARED);
      before = awaitStores(first, "RUNNING", "g1");
    } finally {
      // Leave the group so the next instance takes the task over at once.
      first.close(new KafkaStreams.CloseOptions().leaveGroup(true)
          .timeout(Duration.ofSeconds(30)));
    }

    try (KafkaStreams second = streams(appId)) {
      Map<String, Map<String, String>> after = awaitStores(second, "RUNNING", "g1");
      assertThat(after).isEqualTo(before);
      // The rebuilt ledger decides: search has borrowed its cap of 4 already.
      send(TopicCatalogue.JOBS_SUBMITTED, "q1", JobSubmissions.training("q1").gpus(2)
          .at(T0.plusSeconds(180)).build());
      QuotaVerdict q1 = verdicts(3, second).get(2);
      assertThat(q1.getJobId()).isEqualTo("q1");
      assertThat(q1.getVerdict()).isEqualTo(Verdict.QUEUED);
      assertThat(q1.getReason()).isEqualTo("borrowing cap of acme/search reached");
      // The restored peaks still set the floor: 6 non-preemptible GPUs fit the floor of 7 only.
      send(TopicCatalogue.JOBS_SUBMITTED, "inf", JobSubmissions.onlineInference("inf",
          "search-api", 1.0).gpus(6).at(T0.plusSeconds(240)).build());
      QuotaVerdict inf = verdicts(4, second).stream().filter(v -> v.getJobId().equals("inf"))
          .findFirst().orElseThrow();
      assertThat(inf.getVerdict()).isEqualTo(Verdict.GUARANTEED);
      assertThat(inf.getGpus()).isEqualTo(6.0);
    }
  }

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
    QuotaPolicy policy = QuotaPolicy.defaults(QuotaScenario.CLUSTER,
        new QuotaPolicy.BootstrapDefinition("file:test-definition", DEFINITION));
    KafkaStreams s = new KafkaStreams(QuotaTopology.build(policy, serde, QuotaListener.NONE), p);
    s.start();
    return s;
  }

  /** Every entry of the three stores, once the instance runs and has seen {@code job}. */
  private static Map<String, Map<String, String>> awaitStores(KafkaStreams s, String state,
      String job) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      if (s.state().name().equals(state)) {
        try {
          Map<String, Map<String, String>> all = new TreeMap<>();
          for (String name : List.of(QuotaTopology.STATE_STORE, QuotaTopology.JOBS_STORE,
              QuotaTopology.BILLING_STORE)) {
            ReadOnlyKeyValueStore<String, String> store = s.store(StoreQueryParameters
                .fromNameAndType(name, QueryableStoreTypes.<String, String>keyValueStore()));
            Map<String, String> entries = new TreeMap<>();
            try (var it = store.all()) {
              it.forEachRemaining(kv -> entries.put(kv.key, kv.value));
            }
            all.put(name, entries);
          }
          String g = all.get(QuotaTopology.JOBS_STORE).get(job);
          if (g != null && g.contains("\"RUNNING\"")
              && all.get(QuotaTopology.STATE_STORE).containsKey("peaks")) {
            return all;
          }
        } catch (org.apache.kafka.streams.errors.InvalidStateStoreException e) {
          // still restoring
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError("stores not ready with " + job + " running; state " + s.state());
  }

  private static void send(String topic, String key, SpecificRecord value) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    try (var producer = new KafkaProducer<String, SpecificRecord>(p, new StringSerializer(),
        AvroSerdes.valueSerializer(serde))) {
      producer.send(new ProducerRecord<>(topic, key, value)).get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static List<QuotaVerdict> verdicts(int expected) {
    return verdicts(expected, null);
  }

  private static List<QuotaVerdict> verdicts(int expected, KafkaStreams s) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("verdicts"));
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<QuotaVerdict> out = new ArrayList<>();
    try (var c = new KafkaConsumer<String, QuotaVerdict>(p, new StringDeserializer(),
        AvroSerdes.valueDeserializer(serde))) {
      c.subscribe(List.of(TopicCatalogue.QUOTA_VERDICTS));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (out.size() < expected && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(200)).forEach(r -> out.add(r.value()));
      }
    }
    assertThat(out).as("verdicts; streams " + (s == null ? "" : s.state() + " q1="
        + s.store(StoreQueryParameters.fromNameAndType(QuotaTopology.JOBS_STORE,
            QueryableStoreTypes.<String, String>keyValueStore())).get("q1"))).hasSize(expected);
    return out;
  }
}
