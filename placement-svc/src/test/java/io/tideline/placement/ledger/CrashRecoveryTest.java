package io.tideline.placement.ledger;

import io.tideline.platform.security.ProducerStamp;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.GpuAssignment;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.SwitchPath;
import io.tideline.events.Verdict;
import io.tideline.platform.lockstep.Quiescence;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.topics.TopicSpec;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.TidelineInfra;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Crash safety against the real broker and registry. The same scenario runs twice, each time on a
 * fresh broker, in lockstep (world inputs, settle, a tick, settle): once uninterrupted, once with
 * the ledger — a separate JVM — killed with SIGKILL in the middle of a cycle (open transaction),
 * restarted on the same state directory, killed again and restarted on a wiped one (full restore
 * from the changelog). This test plays the executor: every placed job completes ten minutes later.
 * Read with {@code read_committed}, the crashed run's decisions must be exactly the uninterrupted
 * run's — a restore reproduces the state, derived sets included — and never give a GPU share
 * twice or place a job twice.
 */
class CrashRecoveryTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");
  static final int NODES = 20;
  static final int JOBS = 160;
  static final Duration STEP = Duration.ofMinutes(1);
  static final Duration RUN_TIME = Duration.ofMinutes(10);
  static final int STEPS = 70;
  static final Duration SETTLE = Duration.ofMinutes(2);

  @Test
  void shouldDecideExactlyAsAnUninterruptedRunAcrossCrashesAndRestores() throws Exception {
    List<PlacementDecision> clean = run(false);
    List<PlacementDecision> crashed = run(true);

    assertThat(crashed).as("decisions after SIGKILL and restore").hasSameSizeAs(clean);
    for (int i = 0; i < clean.size(); i++) {
      assertThat(crashed.get(i)).as("decision %d", i).isEqualTo(clean.get(i));
    }
    // no GPU share given twice, no job placed twice, every job placed
    Map<String, Double> used = new HashMap<>();
    Map<String, List<GpuAssignment>> holding = new HashMap<>();
    Map<String, Integer> placedCount = new HashMap<>();
    for (PlacementDecision d : crashed) {
      switch (d.getOutcome()) {
        case PLACED, MIGRATED -> {
          if (d.getOutcome() == PlacementOutcome.PLACED) {
            placedCount.merge(d.getJobId(), 1, Integer::sum);
          }
          take(used, holding.remove(d.getJobId()), -1);
          holding.put(d.getJobId(), d.getAssignments());
          take(used, d.getAssignments(), 1);
          for (GpuAssignment a : d.getAssignments()) {
            assertThat(used.get(a.getNodeId() + "/" + a.getGpuIndex()))
                .as("GPU %s/%d after %s of %s (ledger v%d)", a.getNodeId(), a.getGpuIndex(),
                    d.getOutcome(), d.getJobId(), d.getLedgerVersion())
                .isLessThanOrEqualTo(1.0 + 1e-9);
          }
        }
        case RELEASED -> take(used, holding.remove(d.getJobId()), -1);
        default -> { }
      }
    }
    assertThat(placedCount).hasSize(JOBS).allSatisfy((job, n) -> assertThat(n).as(job)
        .isEqualTo(1));
    List<Long> versions = crashed.stream().map(PlacementDecision::getLedgerVersion).toList();
    assertThat(versions).isSortedAccordingTo(Comparator.naturalOrder());
  }

  /** One run of the scenario; {@code crash}: kill the ledger twice mid-cycle. */
  private static List<PlacementDecision> run(boolean crash) throws Exception {
    try (TidelineInfra infra = TidelineInfra.start();
        Quiescence quiet = new Quiescence(infra.broker().bootstrapServers())) {
      List<String> topics = new ArrayList<>();
      for (String t : PlacementTopology.inputTopics()) {
        topics.add(t + ":" + TopicCatalogue.find(t).map(TopicSpec::partitions).orElse(1));
      }
      PlacementTopology.outputTopics().forEach(t -> topics.add(t + ":1"));
      infra.broker().createTopics(topics.toArray(new String[0]));
      Map<String, Object> serde = AvroSerdes.serdeConfig(infra.registry().url(), true);
      String appId = KafkaBroker.unique("placement-crash");
      Path state = Files.createTempDirectory("placement-crash-state");
      List<PlacementDecision> all = new ArrayList<>();
      try (KafkaProducer<String, Object> producer = producer(infra, serde);
          KafkaConsumer<String, byte[]> decisions = consumer(infra)) {
        Deserializer<Object> des = AvroSerdes.valueDeserializer(serde);
        // 1. the world before the clock starts: a 160-GPU cluster, then jobs over 160 s
        for (int i = 1; i <= NODES; i++) {
          String id = String.format("n%02d", i);
          producer.send(new ProducerRecord<>(TopicCatalogue.CLUSTER_INVENTORY, id,
              NodeInventory.newBuilder().setCluster("c1").setNodeId(id)
                  .setChange(NodeChange.JOINED).setObservedAt(T0).setGpuModel("H100")
                  .setGpuMemoryMiB(81920).setGpuCount(8)
                  .setSwitchPath(SwitchPath.newBuilder().setAccessSwitch("asw" + (i + 3) / 4)
                      .setAggregationSwitch("psw1").setCoreSwitch("dsw1").build()).build()));
        }
        Random rnd = new Random(42);
        int[] sizes = {1, 2, 4, 8};
        TreeMap<Instant, List<Object[]>> due = new TreeMap<>(); // event time → records
        for (int j = 0; j < JOBS; j++) {
          String id = String.format("job-%03d", j);
          int g = sizes[rnd.nextInt(sizes.length)];
          Instant at = T0.plusSeconds(1 + j);
          JobSubmitted job = JobSubmissions.training(id).gpus(g).gang(g, 1).at(at).build();
          QuotaVerdict v = QuotaVerdict.newBuilder().setJobId(id).setTenant("search")
              .setQueue("q").setDecidedAt(at).setVerdict(Verdict.SHARED).setGpus(g)
              .setPreemptible(true).setPreemptionRightGranted(false).setReason("t")
              .setPolicyVersion("q1").build();
          due.computeIfAbsent(at, k -> new ArrayList<>()).add(
              new Object[] {TopicCatalogue.JOBS_SUBMITTED, id, job});
          due.computeIfAbsent(at, k -> new ArrayList<>()).add(
              new Object[] {TopicCatalogue.QUOTA_VERDICTS, id, v});
        }
        Process ledger = launch(infra, appId, state);
        try {
          for (int k = 1; k <= STEPS; k++) {
            Instant t = T0.plus(STEP.multipliedBy(k));
            // 2. world inputs timed before the tick, then settle (they reach the inbox first)
            for (List<Object[]> rs : due.headMap(t, false).values()) {
              for (Object[] r : rs) {
                producer.send(new ProducerRecord<>((String) r[0], (String) r[1], r[2]));
              }
            }
            due.headMap(t, false).clear();
            producer.flush();
            settle(quiet, appId);
            // 3. the tick; in the crashed run kill the ledger mid-cycle at two steps
            producer.send(new ProducerRecord<>(TopicCatalogue.CLUSTER_CLOCK, "c1",
                ClockTick.newBuilder().setCluster("c1").setTime(t).setSequence(k)
                    .setIntervalMillis(STEP.toMillis()).setSource(ClockSource.SIMULATED)
                    .build()));
            producer.flush();
            if (crash && k == 3) {
              ledger.destroyForcibly().waitFor();
              ledger = launch(infra, appId, state); // same state directory: store + fencing
            } else if (crash && k == 12) {
              ledger.destroyForcibly().waitFor();
              deleteRecursively(state.toFile());
              ledger = launch(infra, appId, Files.createTempDirectory("placement-crash-wiped"));
            }
            settle(quiet, appId);
            // 4. read this cycle's committed decisions; the executor completes placed jobs
            for (PlacementDecision d : readToEnd(decisions, des)) {
              all.add(d);
              if (d.getOutcome() == PlacementOutcome.MIGRATED) {
                due.computeIfAbsent(d.getDecidedAt(), x -> new ArrayList<>()).add(new Object[] {
                    TopicCatalogue.JOBS_LIFECYCLE, d.getJobId(), lifecycle(d,
                        LifecycleType.RESUMED, d.getDecidedAt())});
              } else if (d.getOutcome() == PlacementOutcome.PLACED) {
                Instant end = d.getDecidedAt().plus(RUN_TIME);
                due.computeIfAbsent(end, x -> new ArrayList<>()).add(new Object[] {
                    TopicCatalogue.JOBS_LIFECYCLE, d.getJobId(), lifecycle(d,
                        LifecycleType.COMPLETED, end)});
              }
            }
          }
        } finally {
          ledger.destroyForcibly().waitFor();
        }
      }
      return all;
    }
  }

  private static void settle(Quiescence quiet, String appId) throws InterruptedException {
    assertThat(quiet.await(List.of(appId), SETTLE, 10, System::currentTimeMillis))
        .as("the ledger consumed everything within %s", SETTLE).isTrue();
  }

  private static JobLifecycle lifecycle(PlacementDecision d, LifecycleType type, Instant at) {
    return JobLifecycle.newBuilder().setJobId(d.getJobId()).setCluster("c1").setType(type)
        .setOccurredAt(at).build();
  }

  /** Every committed decision up to the end of the topic. */
  private static List<PlacementDecision> readToEnd(KafkaConsumer<String, byte[]> consumer,
      Deserializer<Object> des) {
    List<PlacementDecision> out = new ArrayList<>();
    List<TopicPartition> parts = List.of(new TopicPartition(
        TopicCatalogue.PLACEMENT_DECISIONS, 0));
    Map<TopicPartition, Long> ends = consumer.endOffsets(parts);
    long deadline = System.nanoTime() + SETTLE.toNanos();
    while (parts.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
      assertThat(System.nanoTime()).as("decisions read in time").isLessThan(deadline);
      for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
        out.add((PlacementDecision) des.deserialize(r.topic(), r.value()));
      }
    }
    return out;
  }

  private static void take(Map<String, Double> used, List<GpuAssignment> as, int sign) {
    if (as != null) {
      as.forEach(a -> used.merge(a.getNodeId() + "/" + a.getGpuIndex(), sign * a.getShare(),
          Double::sum));
    }
  }

  private static Process launch(TidelineInfra infra, String appId, Path state) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
        LedgerRunner.class.getName(), infra.broker().bootstrapServers(), infra.registry().url(),
        appId, state.toString()).redirectErrorStream(true).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
        StandardCharsets.UTF_8));
    String line;
    while ((line = out.readLine()) != null && !line.contains("RUNNING")) {
      // skip start-up logging
    }
    assertThat(line).as("ledger process started").isNotNull();
    Thread drain = new Thread(() -> {
      try {
        while (out.readLine() != null) {
          // keep the pipe empty so the child never blocks on logging
        }
      } catch (java.io.IOException ignored) {
        // the process was killed
      }
    });
    drain.setDaemon(true);
    drain.start();
    return p;
  }

  private static KafkaProducer<String, Object> producer(TidelineInfra infra,
      Map<String, Object> serde) {
    Map<String, Object> p = new HashMap<>(serde);
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    ProducerStamp.configureAsOwners(p); // each input as its real producer stamps it (ADR 0029)
    return new KafkaProducer<>(p, new StringSerializer(),
        AvroSerdes.<Object>valueSerializer(serde));
  }

  private static KafkaConsumer<String, byte[]> consumer(TidelineInfra infra) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("crash-reader"));
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(),
        new org.apache.kafka.common.serialization.ByteArrayDeserializer());
    c.assign(List.of(new TopicPartition(TopicCatalogue.PLACEMENT_DECISIONS, 0)));
    c.seekToBeginning(c.assignment());
    return c;
  }

  private static void deleteRecursively(File f) {
    File[] children = f.listFiles();
    if (children != null) {
      for (File c : children) {
        deleteRecursively(c);
      }
    }
    f.delete();
  }
}
