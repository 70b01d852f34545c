package io.tideline.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tideline.cli.audit.LogReader;
import io.tideline.cli.audit.Replay;
import io.tideline.cli.audit.ReplayTarget;
import io.tideline.cli.audit.ReplayTargets;
import io.tideline.events.Eviction;
import io.tideline.events.JobLifecycle;
import io.tideline.events.LifecycleType;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.SwitchPath;
import io.tideline.events.WorkloadClass;
import io.tideline.core.scheduling.PlacementPolicy;
import io.tideline.placement.ledger.PlacementMeters;
import io.tideline.placement.ledger.PlacementTopology;
import io.tideline.platform.security.ProducerStamp;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.topics.TopicSpec;
import io.tideline.core.preemption.kernel.PreemptionPolicy;
import io.tideline.preemption.view.PreemptionTopology;
import io.tideline.quota.config.QuotaPolicy;
import io.tideline.quota.stream.QuotaListener;
import io.tideline.quota.stream.QuotaTopology;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.TidelineInfra;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificRecord;
import java.util.Collection;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #10's audit: a run recorded on a real broker by the real placement, quota and preemption
 * topologies (exactly once, as the services run them), then replayed by
 * {@code tideline audit replay}. In the window an online scale-up finds the fleet full, placement
 * asks preemption for room and preemption answers: a preemption decision to reproduce.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AuditReplayTest {

  static final String CLUSTER = "default";
  static final Instant T0 = Instant.parse("2026-11-02T14:00:00Z");
  /** The audited window: one hour of a three-hour run (state before it is rebuilt, not compared). */
  static final Instant FROM = T0.plus(Duration.ofHours(1));
  static final Instant TO = T0.plus(Duration.ofHours(2));
  static final List<String> JOBS = List.of("job-a1", "job-a2", "job-b1", "job-b2", "job-b3",
      "job-c1");
  /** The online scale-up that needs a preemption decision. */
  static final String ONLINE = "search-api-scale-1";

  static TidelineInfra infra;
  static Map<String, Object> serde;
  static final List<KafkaStreams> live = new ArrayList<>();
  static final List<String> appIds = new ArrayList<>();

  @TempDir Path dir;

  @BeforeAll
  static void recordARun() throws Exception {
    infra = TidelineInfra.start();
    List<String> topics = new ArrayList<>();
    for (TopicSpec t : TopicCatalogue.all()) {
      topics.add(t.name() + ":" + Math.min(3, t.partitions()));
    }
    infra.broker().createTopics(topics.toArray(String[]::new));
    keepForever(); // the run is stamped weeks ago: the default 7-day retention would delete it
    serde = AvroSerdes.serdeConfig(infra.registry().url(), true);
    // 1. the three ledgers, live, as the services run them
    live.add(start("quota", QuotaTopology.build(QuotaPolicy.defaults(CLUSTER,
        ReplayTargets.definition(ReplayTargets.DEFAULT_QUOTA_DEFINITION)), serde, QuotaListener.NONE)));
    live.add(start("placement", PlacementTopology.build(PlacementPolicy.defaults(CLUSTER), serde,
        new PlacementMeters(new SimpleMeterRegistry()))));
    live.add(start("preemption", PreemptionTopology.build(PreemptionPolicy.defaults(CLUSTER),
        serde)));
    // 2. a fleet, then jobs before, in and after the window; one job completes in the window.
    //    Each phase settles before the next, so the run tells one story (the log would record
    //    any other interleaving just as faithfully).
    try (KafkaProducer<String, Object> producer = producer()) {
      for (int i = 1; i <= 4; i++) {
        String node = "node-" + i;
        send(producer, TopicCatalogue.CLUSTER_INVENTORY, node, NodeInventory.newBuilder()
            .setCluster(CLUSTER).setNodeId(node).setChange(NodeChange.JOINED).setObservedAt(T0)
            .setGpuModel("H100").setGpuMemoryMiB(81920).setGpuCount(8)
            .setSwitchPath(SwitchPath.newBuilder().setAccessSwitch("asw" + (i + 1) / 2)
                .setAggregationSwitch("psw1").setCoreSwitch("dsw1").build()).build(), T0);
      }
      submit(producer, "job-a1", T0.plusSeconds(600), 8);
      submit(producer, "job-a2", T0.plusSeconds(1200), 16);
      tick(producer, T0.plusSeconds(1201)); // quota decides on ticks (ADR 0008)
      settle();
      // job-b1 is research's batch work on borrowed quota (its batch queue guarantees 0 GPUs),
      // so quota's verdict makes it preemptible: the victim the scale-up below may take
      send(producer, TopicCatalogue.JOBS_SUBMITTED, "job-b1", JobSubmissions.training("job-b1")
          .tenant("research", "llm").workloadClass(WorkloadClass.BATCH_INFERENCE).gpus(8)
          .gang(8, 1).at(FROM.plusSeconds(300)).build(), FROM.plusSeconds(300));
      tick(producer, FROM.plusSeconds(301));
      settle();
      send(producer, TopicCatalogue.JOBS_LIFECYCLE, "job-a1", JobLifecycle.newBuilder()
          .setJobId("job-a1").setCluster(CLUSTER).setType(LifecycleType.COMPLETED)
          .setOccurredAt(FROM.plusSeconds(600)).build(), FROM.plusSeconds(600));
      tick(producer, FROM.plusSeconds(601));
      settle();
      submit(producer, "job-b2", FROM.plusSeconds(900), 4);
      submit(producer, "job-b3", FROM.plusSeconds(1800), 16);
      tick(producer, FROM.plusSeconds(1801));
      settle();
      // 28 of 32 GPUs in use: an 8-GPU online scale-up with the right to preempt (quota grants
      // it to search's online inference) is unplaceable, so placement asks and preemption answers
      send(producer, TopicCatalogue.JOBS_SUBMITTED, ONLINE, JobSubmissions.onlineInference(ONLINE,
          "search-api", 1.0).gpus(8).gang(8, 1).at(FROM.plusSeconds(2400)).build(),
          FROM.plusSeconds(2400));
      // the clock goes on ticking (the cluster clock ticks every minute): placement asks at the
      // first tick, preemption decides at the next, placement applies the answer at the third
      for (int k = 0; k < 3; k++) {
        tick(producer, FROM.plusSeconds(2401 + 60 * k));
        settle();
      }
      submit(producer, "job-c1", TO.plusSeconds(600), 8);
      tick(producer, TO.plusSeconds(601));
      settle();
    }
    live.forEach(KafkaStreams::close);
  }

  @AfterAll
  static void stop() {
    live.forEach(KafkaStreams::close);
    infra.close();
  }

  @Test
  @Order(1)
  void shouldReproduceEveryDecisionOfAnUntouchedLog() throws Exception {
    Path report = dir.resolve("report.json");
    Map<?, Long> before = endOffsets();
    Set<String> groupsBefore = groups();

    Run run = cli("audit", "replay", "--from", FROM.toString(), "--to", TO.toString(),
        "--cluster", CLUSTER, "--report", report.toString());

    assertThat(run.code()).as(run.out() + run.err()).isZero();
    assertThat(run.out()).contains("0 mismatch(es); report: " + report)
        .containsPattern("placement +\\d+ input\\(s\\) replayed to rebuild state, [1-9]\\d* in the window; "
            + "([1-9]\\d*) decision\\(s\\) recorded, \\1 recomputed: 0 mismatch\\(es\\)")
        .containsPattern("quota +\\d+ input\\(s\\) replayed to rebuild state, [1-9]\\d* in the window; "
            + "([1-9]\\d*) decision\\(s\\) recorded, \\1 recomputed: 0 mismatch\\(es\\)")
        .containsPattern("preemption +\\d+ input\\(s\\) replayed to rebuild state, [1-9]\\d* in the window; "
            + "([1-9]\\d*) decision\\(s\\) recorded, \\1 recomputed: 0 mismatch\\(es\\)")
        .contains("policy recorded [placement-2], replayed [placement-2]")
        .contains("policy recorded [preemption-v1], replayed [preemption-v1]")
        .doesNotContain("ACROSS A CONFIG CHANGE");
    assertThat(Files.readString(report)).contains("\"mismatches\" : [ ]");
    // no side effects: every topic's end offsets as they were, no consumer group created
    assertThat(endOffsets()).isEqualTo(before);
    assertThat(groups()).isEqualTo(groupsBefore);
  }

  @Test
  @Order(2)
  void shouldCompareOnlyTheWindowButRebuildTheStateBeforeIt() {
    Replay.Result r = Replay.run(client(), replaySerde(),
        ReplayTargets.placement(CLUSTER), CLUSTER, new Replay.Window(FROM, TO));

    assertThat(r.mismatches()).isEmpty();
    assertThat(r.inputsBefore()).as("inventory, job-a1, job-a2 and their verdicts").isPositive();
    assertThat(r.inputsInWindow()).isPositive();
    assertThat(r.recomputed()).isPositive().isEqualTo(r.recorded());

    Replay.Result earlier = Replay.run(client(), replaySerde(), ReplayTargets.placement(CLUSTER), CLUSTER, new Replay.Window(T0, FROM));
    assertThat(earlier.mismatches()).isEmpty();
    assertThat(earlier.inputsInWindow()).isPositive().isLessThanOrEqualTo(r.inputsBefore());
  }

  @Test
  @Order(3)
  void shouldSayWhenTheReplayRunsOtherRulesThanTheRecordedOnes() {
    PlacementPolicy changed = PlacementPolicy.defaults(CLUSTER).withPolicyVersion("placement-9");
    ReplayTarget target = new ReplayTarget("placement", TopicCatalogue.PLACEMENT_LEDGER_INPUTS,
        List.of(TopicCatalogue.PLACEMENT_DECISIONS),
        s -> PlacementTopology.build(changed, s, new PlacementMeters(new SimpleMeterRegistry())));

    Replay.Result r = Replay.run(client(), replaySerde(),
        target, CLUSTER, new Replay.Window(FROM, TO));

    assertThat(r.acrossConfigChange()).isTrue();
    assertThat(r.recordedPolicies()).containsOnlyKeys("placement-2");
    assertThat(r.replayedPolicies()).containsOnlyKeys("placement-9");
    assertThat(r.mismatches()).isNotEmpty().allSatisfy(m -> assertThat(m.differences())
        .anyMatch(x -> x.startsWith("policyVersion: recorded placement-2, recomputed placement-9")));
  }

  @Test
  @Order(3)
  void shouldRefuseAWindowEndingBeforeItStartsAndAnUnknownLedgerWithTheReason() {
    Run backwards = cli("audit", "replay", "--from", TO.toString(), "--to", FROM.toString());
    Run unknown = cli("audit", "replay", "--from", FROM.toString(), "--to", TO.toString(),
        "--ledger", "billing", "--report", dir.resolve("none.json").toString());

    assertThat(backwards.code()).isEqualTo(1);
    assertThat(backwards.err()).contains("--from must be before --to (got " + TO + " and " + FROM);
    assertThat(unknown.code()).isEqualTo(1);
    assertThat(unknown.err()).contains("unknown ledger billing (placement, quota, preemption)");
  }

  @Test
  @Order(4)
  void shouldReportExactlyTheOneAlteredDecision() throws Exception {
    // a forged copy of job-b1's first verdict: same job, in the window, another reason
    QuotaVerdict original = read(TopicCatalogue.QUOTA_VERDICTS).stream()
        .map(QuotaVerdict.class::cast).filter(x -> x.getJobId().toString().equals("job-b1"))
        .findFirst().orElseThrow();
    QuotaVerdict forged = QuotaVerdict.newBuilder(original).setReason("forged by the test").build();
    try (KafkaProducer<String, Object> producer = producer()) {
      send(producer, TopicCatalogue.QUOTA_VERDICTS, "job-b1", forged, FROM.plusSeconds(300));
    }
    Path report = dir.resolve("altered.json");

    Run run = cli("audit", "replay", "--from", FROM.toString(), "--to", TO.toString(),
        "--report", report.toString());

    assertThat(run.code()).isEqualTo(AuditCommand.ReplayCommand.MISMATCHES);
    assertThat(run.out()).contains("1 mismatch(es); report: " + report)
        .contains("DIFFERS quota.verdicts job-b1")
        .contains("reason: recorded forged by the test, recomputed " + original.getReason());
    assertThat(Files.readString(report)).contains("\"id\" : \"job-b1\"")
        .contains("\"kind\" : \"DIFFERS\"");
  }

  @Test
  @Order(3)
  void shouldReplayTheOnlineScaleUpsPreemptionDecisionAndReportAClusterWithoutInputsAsEmpty() {
    Replay.Result r = Replay.run(client(), replaySerde(), ReplayTargets.preemption(CLUSTER),
        CLUSTER, new Replay.Window(FROM, TO));
    Replay.Result elsewhere = Replay.run(client(), replaySerde(),
        ReplayTargets.preemption("elsewhere"), "elsewhere", new Replay.Window(FROM, TO));

    // the recorded run: preemption took research's borrowed batch job for the scale-up (a victim
    // with a retry instant: the decision Avro's equals cannot compare) and placement evicted it
    assertThat(preemptionDecisions()).singleElement().satisfies(d -> {
      assertThat(d.getPreemptorJobId()).isEqualTo(ONLINE);
      assertThat(d.getOutcome()).isEqualTo(PreemptionOutcome.PREEMPT);
      assertThat(d.getVictims()).extracting(v -> v.getJobId()).containsExactly("job-b1");
      assertThat(d.getVictims().get(0).getRetryAfter()).isNotNull();
    });
    assertThat(read(TopicCatalogue.EVICTIONS)).map(Eviction.class::cast)
        .singleElement().satisfies(e -> assertThat(e.getJobId()).isEqualTo("job-b1"));
    assertThat(r.mismatches()).isEmpty();
    assertThat(r.inputsBefore()).as("inventory, jobs and placements before the window").isPositive();
    assertThat(r.recomputed()).isPositive().isEqualTo(r.recorded());
    // no recorded input for that cluster: nothing to replay, reported as such, not an error
    assertThat(elsewhere.inputsBefore() + elsewhere.inputsInWindow()).isZero();
    assertThat(elsewhere.recorded()).isZero();
    assertThat(elsewhere.recomputed()).isZero();
    assertThat(elsewhere.mismatches()).isEmpty();
  }

  @Test
  @Order(5)
  void shouldReportExactlyTheOneForgedPreemptionDecision() throws Exception {
    // a forged copy of the scale-up's decision: same id and key, in the window, another gain
    PreemptionDecision original = preemptionDecisions().stream()
        .filter(d -> d.getPreemptorJobId().equals(ONLINE)).findFirst().orElseThrow();
    PreemptionDecision forged = PreemptionDecision.newBuilder(original)
        .setGainGpuHours(original.getGainGpuHours() + 100).build();
    try (KafkaProducer<String, Object> producer = producer()) {
      send(producer, TopicCatalogue.PREEMPTION_DECISIONS, CLUSTER, forged,
          original.getDecidedAt());
    }
    Path report = dir.resolve("forged-preemption.json");

    Run run = cli("audit", "replay", "--from", FROM.toString(), "--to", TO.toString(),
        "--ledger", "preemption", "--report", report.toString());

    assertThat(run.code()).as(run.out() + run.err()).isEqualTo(AuditCommand.ReplayCommand.MISMATCHES);
    assertThat(run.out()).contains("1 mismatch(es); report: " + report)
        .contains("DIFFERS preemption.decisions " + original.getDecisionId())
        .contains("gainGpuHours: recorded " + forged.getGainGpuHours() + ", recomputed "
            + original.getGainGpuHours());
    assertThat(Files.readString(report)).contains("\"id\" : \"" + original.getDecisionId() + "\"");
  }

  @Test
  @Order(6)
  void shouldWarnThatTheStateCannotBeRebuiltWhenRetentionDeletedTheLogsBeginning()
      throws Exception {
    TopicPartition log = new TopicPartition(TopicCatalogue.QUOTA_INPUTS, partitionOf(
        TopicCatalogue.QUOTA_INPUTS));
    try (var admin = infra.broker().admin()) {
      admin.deleteRecords(Map.of(log, RecordsToDelete.beforeOffset(1))).all().get();
    }

    Run run = cli("audit", "replay", "--from", FROM.toString(), "--to", TO.toString(),
        "--ledger", "quota", "--report", dir.resolve("truncated.json").toString());

    assertThat(run.out()).contains("TRUNCATED LOG: quota starts at offset {" + log.partition()
        + "=1}");
  }

  // ------------------------------------------------------------------------------- helpers

  static List<PreemptionDecision> preemptionDecisions() {
    return read(TopicCatalogue.PREEMPTION_DECISIONS).stream()
        .map(PreemptionDecision.class::cast).toList();
  }

  static int partitionOf(String topic) {
    return LogReader.read(client(), topic, null).entrySet().stream()
        .filter(e -> !e.getValue().isEmpty()).findFirst().orElseThrow().getKey();
  }


  record Run(int code, String out, String err) {}

  static Run cli(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = TidelineCli.commandLine(new PrintWriter(out, true), new PrintWriter(err, true))
        .execute(withConnection(args));
    return new Run(code, out.toString(), err.toString());
  }

  static String[] withConnection(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--bootstrap", infra.broker().bootstrapServers(), "--registry",
        infra.registry().url()));
    return all.toArray(String[]::new);
  }

  /** The serde settings the CLI replays with. */
  static Map<String, Object> replaySerde() {
    return AvroSerdes.serdeConfig(infra.registry().url(), true);
  }

  static Properties client() {
    Properties p = new Properties();
    p.put("bootstrap.servers", infra.broker().bootstrapServers());
    return p;
  }

  static Map<?, Long> endOffsets() {
    return LogReader.endOffsets(client(), TopicCatalogue.all().stream().map(TopicSpec::name)
        .toList());
  }

  /**
   * Waits until quota, placement and preemption have committed every input they have, checked
   * in the order their outputs feed each other (placement's request → preemption's decision →
   * placement again → preemption again), all in one pass.
   */
  static void settle() throws InterruptedException {
    List<String> quota = List.of(TopicCatalogue.JOBS_SUBMITTED, TopicCatalogue.JOBS_LIFECYCLE,
        TopicCatalogue.CLUSTER_CLOCK, TopicCatalogue.QUOTA_INPUTS);
    List<String> placement = new ArrayList<>(PlacementTopology.inputTopics());
    placement.add(TopicCatalogue.PLACEMENT_LEDGER_INPUTS);
    List<String> preemption = new ArrayList<>(PreemptionTopology.inputTopics());
    preemption.add(TopicCatalogue.PREEMPTION_INPUTS);
    awaitTrue(() -> {
      String[] names = {"quota", "placement", "preemption", "placement", "preemption"};
      List<List<String>> topics = List.of(quota, placement, preemption, placement, preemption);
      int[] app = {0, 1, 2, 1, 2};
      for (int i = 0; i < names.length; i++) {
        String missing = behind(appIds.get(app[i]), topics.get(i));
        if (missing != null) {
          return names[i] + " to commit " + missing;
        }
      }
      return null;
    });
  }

  /** The first partition whose last record {@code group} has not committed, or null. */
  static String behind(String group, List<String> topics) {
    Map<TopicPartition, OffsetAndMetadata> committed;
    try (var admin = infra.broker().admin()) {
      committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    } catch (Exception e) {
      return "its offsets (" + e.getMessage() + ")";
    }
    for (String topic : topics) {
      for (var part : LogReader.read(client(), topic, null).entrySet()) {
        if (part.getValue().isEmpty()) {
          continue;
        }
        long next = part.getValue().get(part.getValue().size() - 1).offset() + 1;
        OffsetAndMetadata c = committed.get(new TopicPartition(topic, part.getKey()));
        if (c == null || c.offset() < next) {
          return topic + "-" + part.getKey() + " up to " + next + " (at " + c + ")";
        }
      }
    }
    return null;
  }

  static void keepForever() throws Exception {
    Map<ConfigResource, Collection<AlterConfigOp>> ops = new HashMap<>();
    for (TopicSpec t : TopicCatalogue.all()) {
      ops.put(new ConfigResource(ConfigResource.Type.TOPIC, t.name()), List.of(new AlterConfigOp(
          new ConfigEntry("retention.ms", "-1"), AlterConfigOp.OpType.SET)));
    }
    try (var admin = infra.broker().admin()) {
      admin.incrementalAlterConfigs(ops).all().get();
    }
  }

  static Set<String> groups() throws Exception {
    try (var admin = infra.broker().admin()) {
      return admin.listGroups().all().get().stream().map(g -> g.groupId())
          .collect(Collectors.toSet());
    }
  }

  static List<Object> read(String topic) {
    Deserializer<Object> des = AvroSerdes.valueDeserializer(serde);
    List<Object> out = new ArrayList<>();
    LogReader.read(client(), topic, null).values().forEach(part -> part.forEach(r -> {
      if (r.value() != null) {
        out.add(des.deserialize(topic, r.value()));
      }
    }));
    return out;
  }

  static void submit(KafkaProducer<String, Object> producer, String job, Instant at, int gpus) {
    send(producer, TopicCatalogue.JOBS_SUBMITTED, job,
        JobSubmissions.training(job).gpus(gpus).gang(gpus, gpus / 8 == 0 ? 1 : gpus / 8).at(at)
            .build(), at);
  }

  /** A cluster clock tick at {@code at}: quota's kernel decides on what came before it. */
  static void tick(KafkaProducer<String, Object> producer, Instant at) {
    send(producer, TopicCatalogue.CLUSTER_CLOCK, CLUSTER, io.tideline.events.ClockTick
        .newBuilder().setCluster(CLUSTER).setTime(at).setSequence(at.getEpochSecond())
        .setIntervalMillis(1000).setSource(io.tideline.events.ClockSource.SIMULATED).build(), at);
  }

  static void send(KafkaProducer<String, Object> producer, String topic, String key,
      SpecificRecord value, Instant at) {
    try {
      producer.send(new ProducerRecord<>(topic, null, at.toEpochMilli(), key, value)).get();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static KafkaProducer<String, Object> producer() {
    Map<String, Object> p = new HashMap<>(serde);
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    ProducerStamp.configureAsOwners(p); // each input as its real producer stamps it (ADR 0029)
    return new KafkaProducer<>(p, new StringSerializer(), AvroSerdes.valueSerializer(serde));
  }

  static KafkaStreams start(String name, Topology topology) throws Exception {
    Properties p = new Properties();
    String appId = KafkaBroker.unique(name);
    appIds.add(appId);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory(name + "-state").toString());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    // its producers stamp tideline-producer as the service does (ADR 0029)
    ProducerStamp.configureStreams(p, name + "-svc");
    KafkaStreams streams = new KafkaStreams(topology, p);
    streams.start();
    return streams;
  }

  /** Waits until {@code pending} answers null; it answers what is still missing. */
  static void awaitTrue(Supplier<String> pending) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    String missing;
    while ((missing = pending.get()) != null) {
      assertThat(System.nanoTime()).as("waiting for " + missing).isLessThan(deadline);
      Thread.sleep(500);
    }
  }
}
