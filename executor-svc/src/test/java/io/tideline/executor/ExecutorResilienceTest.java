package io.tideline.executor;

import static io.tideline.executor.ExecutorHarness.await;
import static io.tideline.executor.ExecutorHarness.bound;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.tideline.events.DeadLetter;
import io.tideline.events.DomainLevel;
import io.tideline.events.GpuAssignment;
import io.tideline.events.JobSubmitted;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.executor.kafka.Outputs;
import io.tideline.executor.kube.KubeActions;
import io.tideline.platform.topics.TopicCatalogue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The executor against a real kube-apiserver, a real broker and registry, with the test playing
 * placement (decisions written by hand): bad pods, a restart between two binds of a gang, a
 * leader failover. Each scenario has its own namespace and nodes; executors are stopped at its end.
 */
class ExecutorResilienceTest {

  static ExecutorHarness h;

  @BeforeAll
  static void start() throws Exception {
    h = ExecutorHarness.start("resilience");
    for (int i = 1; i <= 4; i++) {
      h.node("r" + i, "asw" + ((i + 1) / 2), 8);
    }
  }

  @AfterAll
  static void stop() {
    if (h != null) {
      h.close();
    }
  }

  @Test
  void shouldDeadLetterAMalformedPodWithAnEventAndStillBindTheNextValidPod() {
    h.namespace("bad-input", "search", "ranking");
    ExecutorRuntime e = h.executor("bad-input-1");
    await("leadership", e::leading);
    h.create(h.pod("bad-input", "typo", null, 1, 1)
        .editMetadata().addToAnnotations("tideline.io/workload-class", "sometimes").endMetadata());
    h.create(h.pod("bad-input", "valid", null, 1, 2));

    await("an Event on the bad pod", () -> !h.events("bad-input", "typo", "InvalidTidelineJob")
        .isEmpty());
    assertThat(h.events("bad-input", "typo", "InvalidTidelineJob").get(0).getMessage())
        .contains("tideline.io/workload-class").contains("'sometimes'");
    await("a dead letter", () -> h.deadPods().stream().anyMatch(d -> key(d).equals(
        "bad-input/typo")));
    DeadLetter letter = h.deadPods().stream().filter(d -> key(d).equals("bad-input/typo"))
        .findFirst().orElseThrow();
    assertThat(letter.getErrorClass()).isEqualTo("VALIDATION");
    assertThat(letter.getError()).contains("workload-class");
    assertThat(StandardCharsets.UTF_8.decode(letter.getOriginalValue()).toString())
        .as("the pod itself is kept").contains("\"name\":\"typo\"");

    JobSubmitted valid = awaitSubmission("bad-input/valid");
    assertThat(valid.getResources().getGpuCount()).isEqualTo(2);
    h.publish(TopicCatalogue.PLACEMENT_DECISIONS, ExecutorHarness.CLUSTER,
        placed(valid, "r4", 2, 3));
    Pod p = h.awaitPod("bad-input", "valid", "bound", ExecutorHarness::bound);
    assertThat(p.getSpec().getNodeName()).isEqualTo("r4");
    assertThat(p.getMetadata().getAnnotations()).containsEntry("tideline.io/gpus", "2,3")
        .containsEntry("tideline.io/job", "bad-input/valid");
    assertThat(bound(h.get("bad-input", "typo"))).isFalse();
    assertThat(h.submissions("bad-input/typo")).isEmpty();
    e.close();
  }

  @Test
  void shouldEndWithTheGangBoundOnceWhenTheExecutorRestartsBetweenItsBinds() throws Exception {
    h.namespace("restart", "search", "ranking");
    CountDownLatch never = new CountDownLatch(1);
    AtomicInteger firstBinds = new AtomicInteger();
    KubeActions stallsAfterOneBind = new KubeActions(h.kube.executor(), java.time.Clock
        .systemUTC(), "restart-1") {
      @Override
      public BindResult bind(Pod pod, String node, Map<String, String> annotations) {
        if (firstBinds.get() == 1) {
          try {
            never.await(); // the process hangs here until it is killed
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new io.fabric8.kubernetes.client.KubernetesClientException("killed");
          }
        }
        BindResult r = super.bind(pod, node, annotations);
        firstBinds.incrementAndGet();
        return r;
      }
    };
    ExecutorRuntime first = h.executor("restart-1", stallsAfterOneBind);
    await("leadership", first::leading);
    h.create(h.pod("restart", "gang-0", "gang", 2, 4));
    h.create(h.pod("restart", "gang-1", "gang", 2, 4));
    JobSubmitted job = awaitSubmission("restart/gang");
    assertThat(job.getResources().getGangSize()).isEqualTo(2);
    assertThat(job.getResources().getGpuCount()).isEqualTo(8);
    List<GpuAssignment> gpus = new ArrayList<>();
    gpus.addAll(assign("r1", 4, 5, 6, 7));
    gpus.addAll(assign("r2", 4, 5, 6, 7));
    h.publish(TopicCatalogue.PLACEMENT_DECISIONS, ExecutorHarness.CLUSTER,
        decision(job, gpus, "restart-decision"));
    h.awaitPod("restart", "gang-0", "bound by the first replica", ExecutorHarness::bound);
    assertThat(bound(h.get("restart", "gang-1"))).as("the first replica hangs before it")
        .isFalse();

    first.crash(); // killed between the two binds; its lease runs out on its own
    ExecutorRuntime second = h.executor("restart-2");
    Pod g1 = h.awaitPod("restart", "gang-1", "bound after the restart", ExecutorHarness::bound);
    Pod g0 = h.get("restart", "gang-0");
    assertThat(g0.getSpec().getNodeName()).isEqualTo("r1");
    assertThat(g1.getSpec().getNodeName()).isEqualTo("r2");
    assertThat(g0.getMetadata().getAnnotations()).containsEntry("tideline.io/gpus", "4,5,6,7")
        .containsEntry("tideline.io/decision", "restart-decision");
    assertThat(h.events("restart", "gang-0", "Scheduled")).hasSize(1);
    assertThat(h.events("restart", "gang-1", "Scheduled")).hasSize(1);
    assertThat(first.meters().binds("BOUND")).isEqualTo(1);
    assertThat(second.meters().binds("BOUND")).isEqualTo(1);
    assertThat(second.meters().binds("ALREADY_BOUND")).as("found bound, not bound again")
        .isEqualTo(1);
    assertThat(h.submissions("restart/gang")).as("the open job survived the restart").hasSize(1);
    second.close();
  }

  @Test
  void shouldDeleteWhatWasBoundAndReportFailedWhenOneBindOfAGangFails() {
    h.namespace("all-or-nothing", "search", "ranking");
    AtomicInteger binds = new AtomicInteger();
    KubeActions secondBindRefused = new KubeActions(h.kube.executor(), java.time.Clock
        .systemUTC(), "aon-1") {
      @Override
      public BindResult bind(Pod pod, String node, Map<String, String> annotations) {
        if (binds.incrementAndGet() == 2) {
          throw new io.fabric8.kubernetes.client.KubernetesClientException(
              "node " + node + " refused the pod (simulated API failure)", 500, null);
        }
        return super.bind(pod, node, annotations);
      }
    };
    ExecutorRuntime e = h.executor("aon-1", secondBindRefused);
    await("leadership", e::leading);
    h.create(h.pod("all-or-nothing", "w-0", "w", 2, 1));
    h.create(h.pod("all-or-nothing", "w-1", "w", 2, 1));
    JobSubmitted job = awaitSubmission("all-or-nothing/w");
    List<GpuAssignment> gpus = new ArrayList<>(assign("r1", 0));
    gpus.addAll(assign("r2", 0));
    h.publish(TopicCatalogue.PLACEMENT_DECISIONS, ExecutorHarness.CLUSTER,
        decision(job, gpus, "aon-decision"));
    await("FAILED", () -> h.lifecycle("all-or-nothing/w").stream()
        .anyMatch(l -> l.getType() == io.tideline.events.LifecycleType.FAILED));
    assertThat(h.lifecycle("all-or-nothing/w").get(0).getMessage()).contains("bind failed")
        .contains("simulated API failure");
    await("the bound pod deleted", () -> h.get("all-or-nothing", "w-0") == null
        || h.get("all-or-nothing", "w-0").getMetadata().getDeletionTimestamp() != null);
    assertThat(bound(h.get("all-or-nothing", "w-1"))).isFalse();
    assertThat(h.events("all-or-nothing", "w-1", "FailedBinding")).hasSize(1);
    e.close();
  }

  @Test
  void shouldNotDoubleBindWhenTheLeaderFailsOver() {
    h.namespace("failover", "search", "ranking");
    ExecutorRuntime a = h.executor("failover-a");
    await("a leads", a::leading);
    ExecutorRuntime b = h.executor("failover-b");
    h.create(h.pod("failover", "one-0", "one", 2, 2));
    h.create(h.pod("failover", "one-1", "one", 2, 2));
    JobSubmitted one = awaitSubmission("failover/one");
    List<GpuAssignment> gpus = new ArrayList<>(assign("r3", 0, 1));
    gpus.addAll(assign("r3", 2, 3));
    h.publish(TopicCatalogue.PLACEMENT_DECISIONS, ExecutorHarness.CLUSTER,
        decision(one, gpus, "failover-one"));
    h.awaitPod("failover", "one-1", "bound by a", ExecutorHarness::bound);
    h.awaitPod("failover", "one-0", "bound by a", ExecutorHarness::bound);
    assertThat(b.leading()).isFalse();
    assertThat(b.meters().binds("BOUND")).as("the follower binds nothing").isZero();

    a.crash(); // the leader dies holding the lease
    await("b takes over", b::leading);
    ExecutorRuntime a2 = h.executor("failover-a"); // a comes back, as a follower now
    h.create(h.pod("failover", "two-0", "two", 1, 8));
    JobSubmitted two = awaitSubmission("failover/two");
    h.publish(TopicCatalogue.PLACEMENT_DECISIONS, ExecutorHarness.CLUSTER,
        decision(two, assign("r4", 0, 1, 2, 3, 4, 5, 6, 7), "failover-two"));
    assertThat(h.awaitPod("failover", "two-0", "bound by b", ExecutorHarness::bound)
        .getSpec().getNodeName()).isEqualTo("r4");

    for (String pod : List.of("one-0", "one-1", "two-0")) {
      assertThat(h.events("failover", pod, "Scheduled")).as(pod).hasSize(1);
    }
    assertThat(a.meters().binds("BOUND")).isEqualTo(2);
    assertThat(b.meters().binds("BOUND")).isEqualTo(1);
    assertThat(a2.meters().binds("BOUND")).isZero();
    assertThat(a.meters().binds("CONFLICT") + b.meters().binds("CONFLICT")
        + a2.meters().binds("CONFLICT")).isZero();
    assertThat(h.submissions("failover/one")).as("no resubmission by the new leader").hasSize(1);
    b.close();
    a2.close();
  }

  @Test
  void shouldParkAnOutcomeAddedAfterItWasBuiltAndKeepBinding() throws Exception {
    h.namespace("newer-placement", "search", "ranking");
    ExecutorRuntime e = h.executor("newer-1");
    await("leadership", e::leading);
    h.create(h.pod("newer-placement", "p", null, 1, 1));
    JobSubmitted job = awaitSubmission("newer-placement/p");
    // a later placement writes an outcome this executor's contract does not have yet
    org.apache.avro.Schema newer = new org.apache.avro.Schema.Parser().parse(
        PlacementDecision.getClassSchema().toString().replace("\"MIGRATED\"]",
            "\"MIGRATED\", \"RESIZED\"]"));
    var out = new java.io.ByteArrayOutputStream();
    var enc = org.apache.avro.io.EncoderFactory.get().binaryEncoder(out, null);
    new org.apache.avro.specific.SpecificDatumWriter<PlacementDecision>(
        PlacementDecision.getClassSchema()).write(placed(job, "r1", 0), enc);
    enc.flush();
    org.apache.avro.generic.GenericRecord r = new org.apache.avro.generic.GenericDatumReader<
        org.apache.avro.generic.GenericRecord>(PlacementDecision.getClassSchema(), newer)
        .read(null, org.apache.avro.io.DecoderFactory.get().binaryDecoder(out.toByteArray(),
            null));
    r.put("outcome", new org.apache.avro.generic.GenericData.EnumSymbol(
        newer.getField("outcome").schema(), "RESIZED"));
    h.publish(TopicCatalogue.PLACEMENT_DECISIONS, ExecutorHarness.CLUSTER, r);
    h.publish(TopicCatalogue.PLACEMENT_DECISIONS, ExecutorHarness.CLUSTER,
        placed(job, "r1", 0));
    assertThat(h.awaitPod("newer-placement", "p", "bound after the unknown outcome",
        ExecutorHarness::bound).getSpec().getNodeName()).isEqualTo("r1");
    List<DeadLetter> parked = h.read("placement.decisions.dlq", DeadLetter.class);
    assertThat(parked).anySatisfy(d -> {
      assertThat(d.getService()).isEqualTo("executor-svc");
      assertThat(d.getErrorClass()).isEqualTo("DESERIALIZATION");
      assertThat(d.getError()).contains("RESIZED");
    });
    e.close();
  }

  @Test
  void shouldDeadLetterADecisionOutsideThePlatformsBoundsAndBindTheNext() {
    h.namespace("bounds", "search", "ranking");
    ExecutorRuntime e = h.executor("bounds-1");
    await("leadership", e::leading);
    h.create(h.pod("bounds", "p", null, 1, 1));
    JobSubmitted job = awaitSubmission("bounds/p");
    // a decision the platform's EventValidator refuses for every consumer: a share above 1
    PlacementDecision impossible = PlacementDecision.newBuilder(placed(job, "r3", 5))
        .setDecisionId("bounds-impossible").setAssignments(List.of(GpuAssignment.newBuilder()
            .setNodeId("r3").setGpuIndex(5).setShare(1.5).build())).build();
    h.publish(TopicCatalogue.PLACEMENT_DECISIONS, ExecutorHarness.CLUSTER, impossible);
    h.publish(TopicCatalogue.PLACEMENT_DECISIONS, ExecutorHarness.CLUSTER, placed(job, "r3", 6));
    Pod p = h.awaitPod("bounds", "p", "bound by the valid decision", ExecutorHarness::bound);
    assertThat(p.getMetadata().getAnnotations()).containsEntry("tideline.io/gpus", "6");
    await("the refused decision dead-lettered", () -> h.read("placement.decisions.dlq",
        DeadLetter.class).stream().anyMatch(d -> d.getError().contains("bounds/p")));
    DeadLetter letter = h.read("placement.decisions.dlq", DeadLetter.class).stream()
        .filter(d -> d.getError().contains("bounds/p")).findFirst().orElseThrow();
    assertThat(letter.getService()).isEqualTo("executor-svc");
    assertThat(letter.getErrorClass()).isEqualTo("VALIDATION");
    assertThat(letter.getError()).contains("PlacementDecision bounds/p")
        .contains("r3/5 with share 1.5 outside (0, 1]");
    assertThat(h.events("bounds", "p", "Scheduled")).hasSize(1);
    e.close();
  }

  @Test
  void shouldRetryAnEvictionAPodDisruptionBudgetBlocksAndReportPreemptedOnceItIsAllowed() {
    h.namespace("guarded", "search", "ranking");
    ExecutorRuntime e = h.executor("guarded-1");
    await("leadership", e::leading);
    h.create(h.pod("guarded", "server", null, 1, 1).editMetadata().addToLabels("app", "server")
        .endMetadata());
    h.admin.policy().v1().podDisruptionBudget().inNamespace("guarded").resource(
        new io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder()
            .withNewMetadata().withName("keep-one").endMetadata().withNewSpec()
            .withMinAvailable(new io.fabric8.kubernetes.api.model.IntOrString(1))
            .withNewSelector().addToMatchLabels("app", "server").endSelector().endSpec()
            .build()).create();
    JobSubmitted job = awaitSubmission("guarded/server");
    h.publish(TopicCatalogue.PLACEMENT_DECISIONS, ExecutorHarness.CLUSTER,
        placed(job, "r2", 7));
    h.running(h.awaitPod("guarded", "server", "bound", ExecutorHarness::bound),
        java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
            .minusSeconds(30));
    await("STARTED", () -> h.lifecycle("guarded/server").stream()
        .anyMatch(l -> l.getType() == io.tideline.events.LifecycleType.STARTED));

    h.publish(TopicCatalogue.EVICTIONS, "guarded/server", io.tideline.events.Eviction
        .newBuilder().setEvictionId("reclaim-1").setJobId("guarded/server")
        .setCluster(ExecutorHarness.CLUSTER).setKind(io.tideline.events.EvictionKind.PREEMPT)
        .setDecisionId("plan-1").setCheckpointFirst(false).setGraceSeconds(30)
        .setReason("test").setIssuedAt(java.time.Instant.now()).build());
    await("the PDB's refusal as an Event", () -> !h.events("guarded", "server",
        "EvictionBlocked").isEmpty());
    assertThat(h.get("guarded", "server").getMetadata().getDeletionTimestamp()).isNull();
    assertThat(h.lifecycle("guarded/server")).extracting(l -> l.getType().name())
        .doesNotContain("PREEMPTED");

    h.admin.policy().v1().podDisruptionBudget().inNamespace("guarded").withName("keep-one")
        .delete(); // the operator lifts the budget
    Pod t = h.awaitPod("guarded", "server", "evicted on a retry",
        p -> p.getMetadata().getDeletionTimestamp() != null);
    assertThat(t.getMetadata().getDeletionGracePeriodSeconds()).as("the order's grace: no "
        + "checkpoint asked").isEqualTo(30L);
    h.finishTerminating("guarded");
    await("PREEMPTED", () -> h.lifecycle("guarded/server").stream()
        .anyMatch(l -> l.getType() == io.tideline.events.LifecycleType.PREEMPTED));
    e.close();
  }

  @Test
  void shouldParkAnUnusableOpenJobRecordOnceAndStillRestoreTheOtherOpenJobs() {
    h.namespace("open-jobs", "search", "ranking");
    ExecutorRuntime first = h.executor("open-jobs-1");
    await("leadership", first::leading);
    h.create(h.pod("open-jobs", "kept", null, 1, 1));
    JobSubmitted kept = awaitSubmission("open-jobs/kept");
    first.close();
    // what no executor writes on its open-jobs log: bytes that are not our Avro, and a job filed
    // under a key that is not its id
    h.publishRaw(Outputs.EXECUTOR_JOBS, "open-jobs/garbage",
        "{\"jobId\": \"open-jobs/garbage\"}".getBytes(StandardCharsets.UTF_8));
    h.publish(Outputs.EXECUTOR_JOBS, "open-jobs/elsewhere", kept);

    ExecutorRuntime second = h.executor("open-jobs-2");
    await("leadership despite the two records", second::leading);
    h.publish(TopicCatalogue.PLACEMENT_DECISIONS, ExecutorHarness.CLUSTER,
        placed(kept, "r1", 0));
    h.awaitPod("open-jobs", "kept", "bound by the new leader", ExecutorHarness::bound);
    assertThat(h.submissions("open-jobs/kept")).as("restored as an open job, not submitted "
        + "again").hasSize(1);
    List<DeadLetter> parked = openJobLetters();
    assertThat(parked).filteredOn(d -> key(d).equals("open-jobs/garbage")).singleElement()
        .satisfies(d -> {
          assertThat(d.getErrorClass()).isEqualTo("DESERIALIZATION");
          assertThat(d.getService()).isEqualTo("executor-svc");
          assertThat(d.getError()).contains("not a JobSubmitted");
          assertThat(StandardCharsets.UTF_8.decode(d.getOriginalValue()).toString())
              .as("the record itself is kept").contains("open-jobs/garbage");
        });
    assertThat(parked).filteredOn(d -> key(d).equals("open-jobs/elsewhere")).singleElement()
        .satisfies(d -> {
          assertThat(d.getErrorClass()).isEqualTo("VALIDATION");
          assertThat(d.getError()).contains("key open-jobs/elsewhere holds job open-jobs/kept");
        });
    second.close();

    ExecutorRuntime third = h.executor("open-jobs-3");
    await("leadership", third::leading);
    h.create(h.pod("open-jobs", "later", null, 1, 1));
    awaitSubmission("open-jobs/later"); // the third leader runs: it has read the open jobs
    assertThat(openJobLetters()).filteredOn(d -> key(d).startsWith("open-jobs/"))
        .as("each record parked once, not at every lead start").hasSize(2);
    third.close();
  }

  // ------------------------------------------------------------------------------------------

  private static List<DeadLetter> openJobLetters() {
    return h.read(Outputs.EXECUTOR_JOBS + ".dlq", DeadLetter.class).stream()
        .filter(d -> d.getOriginalTopic().equals(Outputs.EXECUTOR_JOBS)).toList();
  }

  private static String key(DeadLetter d) {
    return d.getOriginalKey() == null ? ""
        : StandardCharsets.UTF_8.decode(d.getOriginalKey().duplicate()).toString();
  }

  static JobSubmitted awaitSubmission(String jobId) {
    await("submission of " + jobId, () -> !h.submissions(jobId).isEmpty());
    return h.submissions(jobId).get(0);
  }

  static List<GpuAssignment> assign(String node, int... indices) {
    List<GpuAssignment> out = new ArrayList<>();
    for (int i : indices) {
      out.add(GpuAssignment.newBuilder().setNodeId(node).setGpuIndex(i).setShare(1.0).build());
    }
    return out;
  }

  static PlacementDecision placed(JobSubmitted job, String node, int... indices) {
    return decision(job, assign(node, indices), job.getJobId() + "/placed");
  }

  static PlacementDecision decision(JobSubmitted job, List<GpuAssignment> gpus, String id) {
    return PlacementDecision.newBuilder().setDecisionId(id).setCluster(ExecutorHarness.CLUSTER)
        .setJobId(job.getJobId()).setDecidedAt(job.getSubmittedAt().plusSeconds(1))
        .setOutcome(PlacementOutcome.PLACED).setAssignments(gpus)
        .setDomainLevel(DomainLevel.NODE).setLedgerVersion(1).setPolicyVersion("test")
        .build();
  }
}
