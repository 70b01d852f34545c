package io.tideline.executor;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tideline.events.DeadLetter;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.executor.kube.KubeActions;
import io.tideline.executor.kube.KubeApiServer;
import io.tideline.platform.security.Provenance;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.topics.TopicSpec;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.TidelineInfra;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The real parts of an executor test class, started once: etcd + kube-apiserver (built from
 * source), a Kafka broker and a schema registry (testkit), every catalogued topic, the executor's
 * RBAC from {@code deploy/k8s/services/executor-svc.yaml}. The test plays the user (creates pods),
 * the kubelet (reports phases, finishes terminating pods) and, where it says so, placement.
 */
final class ExecutorHarness implements AutoCloseable {

  static final String CLUSTER = "c1";
  static final Path REPO = Path.of(System.getProperty("tideline-home", "../.tideline"))
      .getParent();

  final KubeApiServer kube;
  final TidelineInfra infra;
  final KubernetesClient admin;
  final Map<String, Object> serde;
  private final KafkaProducer<String, Object> producer;
  private final List<ExecutorRuntime> runtimes = new ArrayList<>();

  private ExecutorHarness(KubeApiServer kube, TidelineInfra infra) throws Exception {
    this.kube = kube;
    this.infra = infra;
    this.admin = kube.admin();
    this.serde = AvroSerdes.serdeConfig(infra.registry().url(), true);
    List<String> topics = new ArrayList<>();
    for (TopicSpec t : TopicCatalogue.all()) {
      topics.add(t.name() + ":" + t.partitions());
    }
    infra.broker().createTopics(topics.toArray(String[]::new));
    Map<String, Object> p = new HashMap<>(serde);
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    producer = new KafkaProducer<>(p, new StringSerializer(), AvroSerdes.valueSerializer(serde));
    kube.installExecutorRbac(REPO);
  }

  static ExecutorHarness start(String name) throws Exception {
    KubeApiServer kube = KubeApiServer.start(name);
    TidelineInfra infra;
    try {
      infra = TidelineInfra.start();
    } catch (RuntimeException e) {
      kube.close();
      throw e;
    }
    try {
      return new ExecutorHarness(kube, infra);
    } catch (Exception e) {
      infra.close();
      kube.close();
      throw e;
    }
  }

  // ------------------------------------------------------------------------ the executor

  ExecutorSettings settings(String identity) {
    return ExecutorSettings.defaults(CLUSTER, identity, "tideline")
        .withLease(Duration.ofSeconds(6), Duration.ofSeconds(4), Duration.ofSeconds(1));
  }

  /** An executor replica as the executor's service account, started. */
  ExecutorRuntime executor(String identity) {
    return executor(identity, new KubeActions(kube.executor(), Clock.systemUTC(), identity));
  }

  ExecutorRuntime executor(String identity, KubeActions actions) {
    ExecutorRuntime r = new ExecutorRuntime(actions, settings(identity),
        infra.broker().bootstrapServers(), serde, Map.of(), new SimpleMeterRegistry(),
        Clock.systemUTC(), Duration.ofSeconds(30));
    r.start();
    runtimes.add(r);
    return r;
  }

  KubeActions actions(String identity) {
    return new KubeActions(kube.executor(), Clock.systemUTC(), identity);
  }

  // ------------------------------------------------------------------------ the cluster

  void namespace(String name, String tenant, String team) {
    admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
        .addToLabels("tideline.io/tenant", tenant).addToLabels("tideline.io/team", team)
        .endMetadata().build()).create();
  }

  /** A GPU node as the kubelet and GPU feature discovery would register it. */
  Node node(String name, String accessSwitch, int gpus) {
    Node n = admin.nodes().resource(new NodeBuilder().withNewMetadata().withName(name)
        .addToLabels("nvidia.com/gpu.present", "true")
        .addToLabels("nvidia.com/gpu.product", "H100")
        .addToLabels("nvidia.com/gpu.memory", "81920")
        .addToLabels("network.tideline.io/asw", accessSwitch)
        .addToLabels("network.tideline.io/psw", "psw1")
        .addToLabels("network.tideline.io/dsw", "dsw1")
        .endMetadata().build()).create();
    n.setStatus(new io.fabric8.kubernetes.api.model.NodeStatusBuilder()
        .addToCapacity("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
        .addToCapacity("cpu", new Quantity("128")).addToCapacity("memory", new Quantity("1Ti"))
        .addToCapacity("pods", new Quantity("110"))
        .addToAllocatable("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
        .addToAllocatable("cpu", new Quantity("128"))
        .addToAllocatable("memory", new Quantity("1Ti"))
        .addToAllocatable("pods", new Quantity("110"))
        .withConditions(new NodeConditionBuilder().withType("Ready").withStatus("True")
            .withReason("KubeletReady").build())
        .build());
    return admin.nodes().resource(n).updateStatus();
  }

  /** A pod of a gang ({@code group} null: a pod of its own), as a Job controller would make it. */
  PodBuilder pod(String ns, String name, String group, int total, int gpus) {
    PodBuilder b = new PodBuilder().withNewMetadata().withNamespace(ns).withName(name)
        .endMetadata()
        .withNewSpec().withSchedulerName("tideline").withRestartPolicy("Never")
        .addNewContainer().withName("trainer").withImage("trainer:1")
        .withNewResources()
        .addToLimits(gpus > 0 ? Map.of("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
            : Map.of())
        .addToRequests("cpu", new Quantity("1")).endResources()
        .endContainer().endSpec();
    if (group != null) {
      b.editMetadata().addToLabels("kueue.x-k8s.io/pod-group-name", group)
          .addToAnnotations("kueue.x-k8s.io/pod-group-total-count", Integer.toString(total))
          .endMetadata();
    }
    return b;
  }

  Pod create(PodBuilder b) {
    return admin.pods().resource(b.build()).create();
  }

  Pod get(String ns, String name) {
    return admin.pods().inNamespace(ns).withName(name).get();
  }

  /** The kubelet: the pod's containers run. */
  void running(Pod p, Instant startedAt) {
    Pod cur = get(p.getMetadata().getNamespace(), p.getMetadata().getName());
    cur.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Running")
        .withStartTime(startedAt.toString())
        .withContainerStatuses(new ContainerStatusBuilder().withName("trainer")
            .withImage("trainer:1").withImageID("trainer@sha256:1").withReady(true)
            .withRestartCount(0).withStarted(true)
            .withState(new ContainerStateBuilder().withNewRunning()
                .withStartedAt(startedAt.toString()).endRunning().build()).build())
        .build());
    admin.pods().resource(cur).updateStatus();
  }

  /** The kubelet: the pod's containers exited with {@code exitCode}. */
  void exited(Pod p, Instant finishedAt, int exitCode) {
    Pod cur = get(p.getMetadata().getNamespace(), p.getMetadata().getName());
    cur.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder()
        .withPhase(exitCode == 0 ? "Succeeded" : "Failed")
        .withStartTime(finishedAt.minusSeconds(60).toString())
        .withContainerStatuses(new ContainerStatusBuilder().withName("trainer")
            .withImage("trainer:1").withImageID("trainer@sha256:1").withReady(false)
            .withRestartCount(0).withStarted(false)
            .withState(new ContainerStateBuilder().withNewTerminated().withExitCode(exitCode)
                .withReason(exitCode == 0 ? "Completed" : "Error")
                .withStartedAt(finishedAt.minusSeconds(60).toString())
                .withFinishedAt(finishedAt.toString()).endTerminated().build()).build())
        .build());
    admin.pods().resource(cur).updateStatus();
  }

  /** The kubelet: a terminating pod's process has stopped; the pod object goes. */
  void finishTerminating(String ns) {
    for (Pod p : admin.pods().inNamespace(ns).list().getItems()) {
      if (p.getMetadata().getDeletionTimestamp() != null) {
        admin.pods().resource(p).withGracePeriod(0).delete();
      }
    }
  }

  /** Scheduled events on a pod (one per Binding this executor made). */
  List<Event> events(String ns, String pod, String reason) {
    return admin.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> pod.equals(e.getInvolvedObject().getName())
            && reason.equals(e.getReason())).toList();
  }

  // ------------------------------------------------------------------------ Kafka

  void publish(String topic, String key, Object value) {
    try {
      producer.send(new ProducerRecord<>(topic, null, key, value, owner(topic))).get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** The stamp of the topic's catalogue owner: the scenarios write as placement does (ADR 0029). */
  private static org.apache.kafka.common.header.Headers owner(String topic) {
    return Provenance.stampOf(Provenance.ownerOf(topic));
  }

  /** Writes bytes as they are: what no Tideline producer writes (a hand-made or foreign record). */
  void publishRaw(String topic, String key, byte[] value) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    try (var raw = new KafkaProducer<String, byte[]>(p, new StringSerializer(),
        new ByteArraySerializer())) {
      raw.send(new ProducerRecord<>(topic, null, key, value, owner(topic))).get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Every record of {@code topic} so far (read from the beginning, without a group). */
  <T> List<T> read(String topic, Class<T> type) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("reader"));
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<T> out = new ArrayList<>();
    try (var c = new KafkaConsumer<String, Object>(p, new StringDeserializer(),
        AvroSerdes.valueDeserializer(serde))) {
      c.subscribe(List.of(topic));
      long idle = 0;
      while (idle < 3) {
        var records = c.poll(Duration.ofMillis(500));
        idle = records.isEmpty() ? idle + 1 : 0;
        records.forEach(r -> {
          if (type.isInstance(r.value())) {
            out.add(type.cast(r.value()));
          }
        });
      }
    }
    return out;
  }

  /** Waits for the executor's submission of {@code jobId}, and returns it. */
  JobSubmitted awaitSubmission(String jobId) {
    await("submission of " + jobId, () -> !submissions(jobId).isEmpty());
    return submissions(jobId).get(0);
  }

  List<JobSubmitted> submissions(String jobId) {
    return read(TopicCatalogue.JOBS_SUBMITTED, JobSubmitted.class).stream()
        .filter(j -> j.getJobId().equals(jobId)).toList();
  }

  List<JobLifecycle> lifecycle(String jobId) {
    return read(TopicCatalogue.JOBS_LIFECYCLE, JobLifecycle.class).stream()
        .filter(j -> j.getJobId().equals(jobId)).toList();
  }

  List<DeadLetter> deadPods() {
    return read("executor.pods.dlq", DeadLetter.class);
  }

  /** Waits (generously: the machine is shared) until {@code condition} holds. */
  static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  /** Waits until the pod satisfies {@code p}, and returns it. */
  Pod awaitPod(String ns, String name, String what, Predicate<Pod> p) {
    await(ns + "/" + name + " " + what, () -> {
      Pod cur = get(ns, name);
      return cur != null && p.test(cur);
    });
    return get(ns, name);
  }

  static boolean bound(Pod p) {
    return p.getSpec().getNodeName() != null;
  }

  static boolean terminating(Pod p) {
    return p.getMetadata().getDeletionTimestamp() != null;
  }

  /**
   * Stops every executor replica started so far, handing over its lease: a scenario that fails
   * half-way leaves no leader behind to block the next one.
   */
  void stopExecutors() {
    runtimes.forEach(r -> {
      try {
        r.close();
      } catch (RuntimeException e) {
        // already stopped
      }
    });
    runtimes.clear();
  }

  @Override
  public void close() {
    runtimes.forEach(r -> {
      try {
        r.close();
      } catch (RuntimeException e) {
        // already stopped
      }
    });
    producer.close();
    try {
      infra.close();
    } finally {
      kube.close();
    }
  }
}
