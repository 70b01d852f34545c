package io.tideline.executor;

import static io.tideline.executor.ExecutorHarness.await;
import static io.tideline.executor.ExecutorHarness.bound;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.core.scheduling.PlacementPolicy;
import io.tideline.events.ClockSource;
import io.tideline.placement.ledger.PlacementMeters;
import io.tideline.placement.ledger.PlacementTopology;
import io.tideline.platform.security.ProducerStamp;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.quota.config.QuotaPolicy;
import io.tideline.quota.stream.QuotaListener;
import io.tideline.quota.stream.QuotaTopology;
import io.tideline.telemetry.clock.TickSequence;
import io.tideline.telemetry.inventory.FileInventorySource;
import io.tideline.telemetry.inventory.InventoryDiff;
import io.tideline.telemetry.inventory.InventoryPublisher;
import io.tideline.telemetry.inventory.KubernetesNodeSource;
import io.tideline.testkit.KafkaBroker;
import java.io.FileInputStream;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * End to end through the real services: pods created in a real kube-apiserver (from the example
 * manifests of {@code deploy/k8s/examples}) → the executor's submission → quota's and placement's
 * own topologies ({@code QuotaTopology.build}, {@code PlacementTopology.build}) in real Kafka
 * Streams instances, exactly once, on the real broker and registry → bindings visible in the API
 * server. The fleet is six 8-GPU H100 nodes, two per access switch, registered as Kubernetes
 * nodes and published on {@code cluster.inventory} by gpu-telemetry-svc's own node informer. The
 * kernels decide on ticks (ADR 0008): {@code cluster.clock} follows the wall clock here, as
 * gpu-telemetry-svc's clock publishes it in production (its own {@link TickSequence}, 1 s ticks),
 * so the times the test gives the kubelet's pod states are the present's, not fixed dates.
 */
class ExecutorEndToEndTest {

  static final String DEFINITION = """
      version: "e2e-1"
      fleetGpus: 48
      nodes:
        - {path: acme, kind: ORGANISATION, guaranteedGpus: 40}
        - {path: acme/search, kind: BUSINESS_LINE, guaranteedGpus: 8, borrowCapGpus: 8,
           preemptionGrants: [ONLINE_INFERENCE, CRITICAL_JOBS]}
        - {path: acme/search/ranking, kind: TEAM, guaranteedGpus: 8}
        - {path: acme/search/ranking/inference, kind: QUEUE, lane: INFERENCE, guaranteedGpus: 8,
           lendLimitGpus: 0, services: [search-api]}
        - {path: acme/research, kind: BUSINESS_LINE, guaranteedGpus: 32, borrowCapGpus: 8,
           preemptionGrants: []}
        - {path: acme/research/llm, kind: TEAM, guaranteedGpus: 32}
        - {path: acme/research/llm/training, kind: QUEUE, lane: TRAINING, guaranteedGpus: 32,
           lendLimitGpus: 0}
      """;
  static final String H100 = "NVIDIA-H100-80GB-HBM3";

  static ExecutorHarness h;
  static KafkaStreams placement;
  static KafkaStreams quota;
  static ExecutorRuntime executor;
  static Job trainingJob;
  static Deployment ranker;
  static KubernetesNodeSource nodes;
  static ScheduledExecutorService clock;
  /** Tick interval of the test's cluster clock (production: tideline.telemetry.clock.interval). */
  static final Duration TICK = Duration.ofSeconds(1);

  @BeforeAll
  static void start() throws Exception {
    h = ExecutorHarness.start("e2e");
    // the user's manifests, as deploy/k8s/examples ships them
    for (String f : List.of("training-gang.yaml", "inference-fractional.yaml")) {
      try (var in = new FileInputStream(ExecutorHarness.REPO.resolve("deploy/k8s/examples/" + f)
          .toFile())) {
        for (HasMetadata o : h.admin.load(in).items()) {
          if (o instanceof Job j) {
            trainingJob = j;
          } else if (o instanceof Deployment d) {
            ranker = d;
          } else {
            h.admin.resource(o).create(); // the namespaces, with their tenant and team labels
          }
        }
      }
    }
    // six H100 nodes, two per access switch, published by gpu-telemetry-svc's node informer
    for (int i = 1; i <= 6; i++) {
      Node n = h.node("gpu-" + i, "asw" + ((i + 1) / 2), 8);
      n.getMetadata().getLabels().put("nvidia.com/gpu.product", H100);
      h.admin.nodes().resource(n).patch();
    }
    nodes = new KubernetesNodeSource(h.kube.executor(), "nvidia.com/gpu.present=true",
        new KubernetesNodeSource.TopologyLabels(List.of("network.tideline.io/asw"),
            List.of("network.tideline.io/psw"), List.of("network.tideline.io/dsw"),
            "tideline.io/nvlink-islands"),
        new FileInventorySource.GpuDefaults("unknown", 8, 81920, 1), List.of());
    nodes.start(() -> { });
    await("six H100 nodes in the informer", () -> {
      try {
        return nodes.snapshot().values().stream().filter(n -> H100.equals(n.gpuModel()))
            .count() == 6;
      } catch (Exception e) {
        return false;
      }
    });
    for (InventoryDiff.Change c : InventoryDiff.diff(Map.of(), nodes.snapshot())) {
      h.publish(TopicCatalogue.CLUSTER_INVENTORY, c.node().nodeId(),
          InventoryPublisher.toAvro(ExecutorHarness.CLUSTER, c, Instant.now()));
    }
    startClock();
    quota = streams("quota", QuotaTopology.build(QuotaPolicy.defaults(ExecutorHarness.CLUSTER,
        new QuotaPolicy.BootstrapDefinition("file:e2e", DEFINITION)), h.serde,
        QuotaListener.NONE));
    placement = streams("placement", PlacementTopology.build(
        PlacementPolicy.defaults(ExecutorHarness.CLUSTER), h.serde,
        new PlacementMeters(new SimpleMeterRegistry())));
    executor = h.executor("e2e-executor");
    await("the executor leads", executor::leading);
  }

  /** gpu-telemetry-svc's wall clock: every tick due is published on cluster.clock. */
  private static void startClock() {
    TickSequence ticks = new TickSequence(ExecutorHarness.CLUSTER, TICK, ClockSource.WALL);
    clock = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "e2e-cluster-clock");
      t.setDaemon(true);
      return t;
    });
    clock.scheduleAtFixedRate(() -> {
      try {
        for (var tick : ticks.advanceTo(Instant.now())) {
          h.publish(TopicCatalogue.CLUSTER_CLOCK, ExecutorHarness.CLUSTER, tick);
        }
      } catch (RuntimeException | AssertionError e) {
        // the next run publishes every tick passed meanwhile
      }
    }, 0, 250, TimeUnit.MILLISECONDS);
  }

  /** A moment just past, to the second (pod states carry seconds), for the kubelet's reports. */
  private static Instant past(long secondsAgo) {
    return Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(secondsAgo);
  }

  @AfterAll
  static void stop() {
    if (clock != null) {
      clock.shutdownNow();
    }
    for (KafkaStreams s : new KafkaStreams[] {placement, quota}) {
      if (s != null) {
        s.close(java.time.Duration.ofSeconds(30));
      }
    }
    if (nodes != null) {
      nodes.close();
    }
    if (h != null) {
      h.close();
    }
  }

  @Test
  void shouldBindATwoByEightGpuGangToTwoNodesOfOneAccessSwitch() {
    List<Pod> gang = jobPods("llm-7b-pretrain", 2);
    List<Pod> bound = new ArrayList<>();
    for (Pod p : gang) {
      bound.add(h.awaitPod("ml-research", p.getMetadata().getName(), "bound by placement",
          ExecutorHarness::bound));
    }
    String n0 = bound.get(0).getSpec().getNodeName();
    String n1 = bound.get(1).getSpec().getNodeName();
    assertThat(n0).isNotEqualTo(n1);
    assertThat(asw(n0)).as("one access switch (T1)").isEqualTo(asw(n1));
    assertThat(bound).allSatisfy(p -> assertThat(p.getMetadata().getAnnotations())
        .containsEntry("tideline.io/gpus", "0,1,2,3,4,5,6,7")
        .containsEntry("tideline.io/job", "ml-research/llm-7b-pretrain")
        .containsKey("tideline.io/decision"));
    JobSubmitted job = h.submissions("ml-research/llm-7b-pretrain").get(0);
    assertThat(job.getTenant()).isEqualTo("research");
    assertThat(job.getTeam()).isEqualTo("llm");
    assertThat(job.getUser()).isEqualTo("carol");
    assertThat(job.getResources().getGpuCount()).isEqualTo(16);
    assertThat(job.getResources().getGangSize()).isEqualTo(2);
    assertThat(job.getResources().getAllowedGpuModels()).containsExactly(H100);
    assertThat(job.getCheckpoint().getWriteShards()).isEqualTo(8);

    Instant started = past(30);
    bound.forEach(p -> h.running(p, started));
    await("STARTED", () -> h.lifecycle("ml-research/llm-7b-pretrain").stream()
        .anyMatch(l -> l.getType() == LifecycleType.STARTED));
    JobLifecycle l = h.lifecycle("ml-research/llm-7b-pretrain").stream()
        .filter(x -> x.getType() == LifecycleType.STARTED).findFirst().orElseThrow();
    assertThat(l.getOccurredAt()).as("when the pods started, not when it was noticed")
        .isEqualTo(started);
    assertThat(l.getAssignments()).hasSize(16);
  }

  @Test
  void shouldPutAFractionalInferencePodOnAGpuItShares() {
    Pod a = h.create(fromTemplate(ranker.getSpec().getTemplate(), "search", "ranker-7d9f-a"));
    Pod boundA = h.awaitPod("search", "ranker-7d9f-a", "bound", ExecutorHarness::bound);
    Pod b = h.create(fromTemplate(ranker.getSpec().getTemplate(), "search", "ranker-7d9f-b"));
    Pod boundB = h.awaitPod("search", "ranker-7d9f-b", "bound", ExecutorHarness::bound);
    assertThat(boundA.getMetadata().getAnnotations()).containsEntry("tideline.io/gpu-share",
        "0.25");
    assertThat(boundB.getMetadata().getAnnotations()).containsEntry("tideline.io/gpu-share",
        "0.25");
    assertThat(boundB.getSpec().getNodeName() + "/" + boundB.getMetadata().getAnnotations()
        .get("tideline.io/gpus")).as("the second quarter shares the first's GPU")
        .isEqualTo(boundA.getSpec().getNodeName() + "/" + boundA.getMetadata().getAnnotations()
            .get("tideline.io/gpus"));
    JobSubmitted job = h.submissions("search/" + a.getMetadata().getName()).get(0);
    assertThat(job.getServiceId()).isEqualTo("search-api");
    assertThat(job.getResources().getGpuShare()).isEqualTo(0.25);
    assertThat(b.getMetadata().getName()).isNotEqualTo(a.getMetadata().getName());

    // the kubelet runs one to completion and the other to a crash
    String ja = "search/" + a.getMetadata().getName();
    String jb = "search/" + b.getMetadata().getName();
    Instant ran = past(120);
    h.running(boundA, ran);
    h.running(boundB, ran);
    await("both STARTED", () -> h.lifecycle(ja).size() == 1 && h.lifecycle(jb).size() == 1);
    Instant finishedA = past(60);
    h.exited(boundA, finishedA, 0);
    h.exited(boundB, past(30), 137);
    await("COMPLETED and FAILED", () -> h.lifecycle(ja).size() == 2
        && h.lifecycle(jb).size() == 2);
    JobLifecycle done = h.lifecycle(ja).get(1);
    assertThat(done.getType()).isEqualTo(LifecycleType.COMPLETED);
    assertThat(done.getOccurredAt()).as("when the container finished").isEqualTo(finishedA);
    JobLifecycle failed = h.lifecycle(jb).get(1);
    assertThat(failed.getType()).isEqualTo(LifecycleType.FAILED);
    assertThat(failed.getMessage()).contains("exited 137");
  }

  @Test
  void shouldCheckpointEvictReportPreemptedAndResumeTheRecreatedPodsAsTheSameJob() {
    String jobId = "ml-research/resumable";
    List<Pod> first = jobPodsNamed("resumable", 2, "a");
    List<Pod> running = new ArrayList<>();
    for (Pod p : first) {
      running.add(h.awaitPod("ml-research", p.getMetadata().getName(), "bound",
          ExecutorHarness::bound));
    }
    Instant ran = past(60);
    running.forEach(p -> h.running(p, ran));
    await("STARTED", () -> h.lifecycle(jobId).stream()
        .anyMatch(l -> l.getType() == LifecycleType.STARTED));

    // placement's order after a preemption plan (as its kernel writes it)
    h.publish(TopicCatalogue.EVICTIONS, jobId, Eviction.newBuilder()
        .setEvictionId("e2e-plan/" + jobId).setJobId(jobId).setCluster(ExecutorHarness.CLUSTER)
        .setKind(EvictionKind.PREEMPT).setDecisionId("e2e-plan").setCheckpointFirst(true)
        .setGraceSeconds(120).setReason("preempted by an online service (P2: score ratio 2.1)")
        .setIssuedAt(Instant.now()).build());
    for (Pod p : first) {
      Pod t = h.awaitPod("ml-research", p.getMetadata().getName(), "terminating",
          x -> x.getMetadata().getDeletionTimestamp() != null);
      assertThat(t.getMetadata().getAnnotations()).containsKey("tideline.io/checkpoint-requested")
          .containsEntry("tideline.io/eviction", "e2e-plan/" + jobId);
      // P4: 80 GB at 2 GB/s with 8 shards = 40 × (0.2 + 0.8 / 8) = 12 s, plus the 10 s margin
      assertThat(t.getMetadata().getDeletionGracePeriodSeconds()).isEqualTo(22L);
      assertThat(h.events("ml-research", p.getMetadata().getName(), "CheckpointRequested"))
          .hasSize(1);
    }
    h.finishTerminating("ml-research"); // the kubelet: the trainers checkpointed and exited
    await("PREEMPTED", () -> h.lifecycle(jobId).stream()
        .anyMatch(l -> l.getType() == LifecycleType.PREEMPTED));

    // the Job controller recreates the pods; they rejoin the same Tideline job
    List<Pod> second = jobPodsNamed("resumable", 2, "b");
    List<Pod> rebound = new ArrayList<>();
    for (Pod p : second) {
      rebound.add(h.awaitPod("ml-research", p.getMetadata().getName(), "bound again",
          ExecutorHarness::bound));
    }
    Instant again = past(5);
    rebound.forEach(p -> h.running(p, again));
    await("RESUMED", () -> h.lifecycle(jobId).stream()
        .anyMatch(l -> l.getType() == LifecycleType.RESUMED));
    assertThat(h.submissions(jobId)).as("the same job, not a new one").hasSize(1);
    assertThat(h.lifecycle(jobId)).extracting(JobLifecycle::getType)
        .containsExactly(LifecycleType.STARTED, LifecycleType.PREEMPTED, LifecycleType.RESUMED);
  }

  // ------------------------------------------------------------------------------------------

  /** The pods the Indexed Job of the example would create. */
  private static List<Pod> jobPods(String group, int count) {
    return jobPodsNamed(group, count, "x");
  }

  private static List<Pod> jobPodsNamed(String group, int count, String suffix) {
    List<Pod> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      PodBuilder b = fromTemplate(trainingJob.getSpec().getTemplate(), "ml-research",
          group + "-" + i + "-" + suffix);
      b.editMetadata().addToLabels("kueue.x-k8s.io/pod-group-name", group).endMetadata();
      out.add(h.create(b));
    }
    return out;
  }

  private static PodBuilder fromTemplate(PodTemplateSpec t, String ns, String name) {
    return new PodBuilder().withNewMetadata().withNamespace(ns).withName(name)
        .withLabels(new java.util.HashMap<>(t.getMetadata().getLabels()))
        .withAnnotations(new java.util.HashMap<>(t.getMetadata().getAnnotations() == null
            ? java.util.Map.of() : t.getMetadata().getAnnotations()))
        .endMetadata().withSpec(t.getSpec());
  }

  private static String asw(String node) {
    return h.admin.nodes().withName(node).get().getMetadata().getLabels()
        .get("network.tideline.io/asw");
  }

  private static KafkaStreams streams(String name, Topology topology) throws Exception {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, KafkaBroker.unique("e2e-" + name));
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, h.infra.broker().bootstrapServers());
    p.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("e2e-" + name).toString());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    // its producers stamp tideline-producer as the service does (ADR 0029)
    ProducerStamp.configureStreams(p, name + "-svc");
    KafkaStreams s = new KafkaStreams(topology, p);
    CountDownLatch running = new CountDownLatch(1);
    s.setStateListener((now, before) -> {
      if (now == KafkaStreams.State.RUNNING) {
        running.countDown();
      }
    });
    s.start();
    assertThat(running.await(120, TimeUnit.SECONDS)).as(name + " running").isTrue();
    return s;
  }
}
