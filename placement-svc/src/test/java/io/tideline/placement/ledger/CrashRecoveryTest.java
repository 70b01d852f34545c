package io.tideline.placement.ledger;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Crash safety against the real broker and registry: the ledger runs in a separate JVM that is
 * killed with SIGKILL mid-stream (no clean close, open transaction), restarted on the same state
 * directory, killed again and restarted on a wiped one (full restore from the changelog), while
 * this test plays the executor (every placed job completes, freeing its GPUs). Read with
 * {@code read_committed}, the decisions must never give a GPU share twice and never place a job
 * twice, and every job must be placed in the end.
 */
class CrashRecoveryTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");
  static final int NODES = 20;
  static final int JOBS = 240;
  static TidelineInfra infra;

  @BeforeAll
  static void start() {
    infra = TidelineInfra.start();
    List<String> topics = new ArrayList<>();
    for (String t : PlacementTopology.inputTopics()) {
      topics.add(t + ":" + TopicCatalogue.find(t).map(TopicSpec::partitions).orElse(1));
    }
    PlacementTopology.outputTopics().forEach(t -> topics.add(t + ":1"));
    infra.broker().createTopics(topics.toArray(new String[0]));
  }

  @AfterAll
  static void stop() {
    infra.close();
  }

  @Test
  void shouldNeverAllocateAGpuTwiceAcrossCrashes() throws Exception {
    Map<String, Object> serde = AvroSerdes.serdeConfig(infra.registry().url(), true);
    String appId = KafkaBroker.unique("placement-crash");
    Path state = Files.createTempDirectory("placement-crash-state");
    try (KafkaProducer<String, Object> producer = producer(serde);
        KafkaConsumer<String, byte[]> decisions = consumer()) {
      Deserializer<Object> des = AvroSerdes.valueDeserializer(serde);
      // 1. a 160-GPU cluster and a backlog larger than it
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
      for (int j = 0; j < JOBS; j++) {
        String id = String.format("job-%03d", j);
        int g = sizes[rnd.nextInt(sizes.length)];
        Instant at = T0.plusSeconds(1 + j);
        JobSubmitted job = JobSubmissions.training(id).gpus(g).gang(g, 1).at(at).build();
        producer.send(new ProducerRecord<>(TopicCatalogue.JOBS_SUBMITTED, id, job));
        producer.send(new ProducerRecord<>(TopicCatalogue.QUOTA_VERDICTS, id,
            QuotaVerdict.newBuilder().setJobId(id).setTenant("search").setQueue("q")
                .setDecidedAt(at).setVerdict(Verdict.SHARED).setGpus(g).setPreemptible(true)
                .setPreemptionRightGranted(false).setReason("t").setPolicyVersion("q1").build()));
      }
      producer.flush();

      // 2. run, crash twice, restart; complete every placed job like an executor would
      List<PlacementDecision> all = new ArrayList<>();
      Process ledger = launch(appId, state);
      drive(producer, decisions, des, all, 60);
      ledger.destroyForcibly().waitFor();
      ledger = launch(appId, state); // same state directory: local store + fencing
      drive(producer, decisions, des, all, 140);
      ledger.destroyForcibly().waitFor();
      deleteRecursively(state.toFile());
      ledger = launch(appId, Files.createTempDirectory("placement-crash-wiped"));
      try {
        drive(producer, decisions, des, all, JOBS);
      } finally {
        ledger.destroyForcibly().waitFor();
      }

      // 3. replay the committed decisions: no GPU share above 1, no job placed twice
      Map<String, Double> used = new HashMap<>();
      Map<String, List<GpuAssignment>> holding = new HashMap<>();
      Map<String, Integer> placedCount = new HashMap<>();
      for (PlacementDecision d : all) {
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
      // versions only grow: a restored ledger continues where the committed one stopped
      List<Long> versions = all.stream().map(PlacementDecision::getLedgerVersion).toList();
      assertThat(versions).isSortedAccordingTo(Comparator.naturalOrder());
    }
  }

  private static void take(Map<String, Double> used, List<GpuAssignment> as, int sign) {
    if (as != null) {
      as.forEach(a -> used.merge(a.getNodeId() + "/" + a.getGpuIndex(), sign * a.getShare(),
          Double::sum));
    }
  }

  /** Reads committed decisions until {@code placedTarget} jobs were placed; completes each. */
  private static void drive(KafkaProducer<String, Object> producer,
      KafkaConsumer<String, byte[]> consumer, Deserializer<Object> des,
      List<PlacementDecision> all, int placedTarget) {
    long placed = all.stream().filter(d -> d.getOutcome() == PlacementOutcome.PLACED).count();
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    while (placed < placedTarget) {
      assertThat(System.nanoTime()).as("placed %d of %d in time", placed, placedTarget)
          .isLessThan(deadline);
      for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
        PlacementDecision d = (PlacementDecision) des.deserialize(r.topic(), r.value());
        all.add(d);
        if (d.getOutcome() == PlacementOutcome.MIGRATED) {
          producer.send(new ProducerRecord<>(TopicCatalogue.JOBS_LIFECYCLE, d.getJobId(),
              JobLifecycle.newBuilder().setJobId(d.getJobId()).setCluster("c1")
                  .setType(LifecycleType.RESUMED).setOccurredAt(d.getDecidedAt()).build()));
        }
        if (d.getOutcome() == PlacementOutcome.PLACED) {
          placed++;
          producer.send(new ProducerRecord<>(TopicCatalogue.JOBS_LIFECYCLE, d.getJobId(),
              JobLifecycle.newBuilder().setJobId(d.getJobId()).setCluster("c1")
                  .setType(LifecycleType.COMPLETED)
                  .setOccurredAt(d.getDecidedAt().plusSeconds(600)).build()));
        }
      }
      producer.flush();
    }
  }

  private static Process launch(String appId, Path state) throws Exception {
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

  private static KafkaProducer<String, Object> producer(Map<String, Object> serde) {
    Map<String, Object> p = new HashMap<>(serde);
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    return new KafkaProducer<>(p, new StringSerializer(),
        AvroSerdes.<Object>valueSerializer(serde));
  }

  private static KafkaConsumer<String, byte[]> consumer() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("crash-reader"));
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(),
        new org.apache.kafka.common.serialization.ByteArrayDeserializer());
    c.subscribe(List.of(TopicCatalogue.PLACEMENT_DECISIONS));
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
