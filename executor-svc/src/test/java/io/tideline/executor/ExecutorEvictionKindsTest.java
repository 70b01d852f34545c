package io.tideline.executor;

import static io.tideline.executor.ExecutorHarness.await;
import static io.tideline.executor.ExecutorHarness.bound;
import static io.tideline.executor.ExecutorResilienceTest.assign;
import static io.tideline.executor.ExecutorResilienceTest.decision;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.GpuAssignment;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.platform.topics.TopicCatalogue;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What each kind of {@code Eviction} (v2: PREEMPT, RECLAIM, SHRINK, MIGRATE) means for the
 * executor, against a real kube-apiserver, broker and registry, with the test playing placement
 * as main's placement kernel writes its orders, and the kubelet. The reference is the twin's
 * executor ({@code simulator World}): a stop is PREEMPTED once the pods are gone; placement then
 * queues the job again (PREEMPT), with fewer GPUs (SHRINK), or never again (RECLAIM, Q7); a
 * migrant is RESUMED on its target and never PREEMPTED.
 */
class ExecutorEvictionKindsTest {

  static ExecutorHarness h;

  @BeforeAll
  static void start() throws Exception {
    h = ExecutorHarness.start("evictions");
    for (int i = 1; i <= 4; i++) {
      h.node("k" + i, "asw" + ((i + 1) / 2), 8);
    }
  }

  @AfterEach
  void stopExecutors() {
    h.stopExecutors();
  }

  @AfterAll
  static void stop() {
    if (h != null) {
      h.close();
    }
  }

  @Test
  void shouldReportAReclaimedJobPreemptedAndTellItsReplacementPodsItIsNotQueuedAgain() {
    h.namespace("reclaim", "research", "llm");
    ExecutorRuntime e = h.executor("reclaim-1");
    await("leadership", e::leading);
    String jobId = "reclaim/idle";
    h.create(h.pod("reclaim", "idle-0-a", "idle", 1, 2));
    JobSubmitted job = h.awaitSubmission(jobId);
    h.publish(TopicCatalogue.PLACEMENT_DECISIONS, ExecutorHarness.CLUSTER,
        decision(job, assign("k1", 0, 1), "reclaim-placed"));
    h.running(h.awaitPod("reclaim", "idle-0-a", "bound", ExecutorHarness::bound), past(60));
    awaitLifecycle(jobId, LifecycleType.STARTED);

    h.publish(TopicCatalogue.EVICTIONS, jobId, eviction(jobId, EvictionKind.RECLAIM,
        "q7-idle", "idle reclaim (Q7): holds GPUs without using them").build());
    Pod t = h.awaitPod("reclaim", "idle-0-a", "terminating", ExecutorHarness::terminating);
    assertThat(t.getMetadata().getAnnotations()).containsKey("tideline.io/checkpoint-requested")
        .containsEntry("tideline.io/eviction", "q7-idle/" + jobId);
    h.finishTerminating("reclaim");
    JobLifecycle stopped = awaitLifecycle(jobId, LifecycleType.PREEMPTED);
    assertThat(stopped.getMessage()).startsWith("RECLAIM: idle reclaim (Q7)");

    // the Job controller recreates its pod: placement retired the job, so it only hears why
    h.create(h.pod("reclaim", "idle-0-b", "idle", 1, 2));
    await("the reclaim's Event on the replacement pod", () -> !h.events("reclaim", "idle-0-b",
        "TidelineReclaimed").isEmpty());
    assertThat(h.events("reclaim", "idle-0-b", "TidelineReclaimed").get(0).getMessage())
        .contains("not queued again").contains("under a new name");
    Pod waiting = h.get("reclaim", "idle-0-b");
    assertThat(waiting.getMetadata().getAnnotations())
        .containsEntry("tideline.io/reclaimed", "q7-idle/" + jobId);
    assertThat(bound(waiting)).isFalse();
    assertThat(h.submissions(jobId)).as("no namesake submission placement would refuse")
        .hasSize(1);
    assertThat(h.deadPods()).noneMatch(d -> d.getError().contains("idle-0-b"));

    // the owner gives up on it: the job ends, so placement forgets it
    h.admin.pods().inNamespace("reclaim").withName("idle-0-b").withGracePeriod(0).delete();
    JobLifecycle ended = awaitLifecycle(jobId, LifecycleType.FAILED);
    assertThat(ended.getMessage()).contains("withdrawn after its reclaim (Q7)");
    assertThat(h.lifecycle(jobId)).extracting(JobLifecycle::getType).containsExactly(
        LifecycleType.STARTED, LifecycleType.PREEMPTED, LifecycleType.FAILED);
  }

  @Test
  void shouldStopAShrunkGangAndBindOnlyAsManyWorkersAsItsSmallerPlacementHas() {
    h.namespace("shrink", "research", "llm");
    ExecutorRuntime e = h.executor("shrink-1");
    await("leadership", e::leading);
    String jobId = "shrink/elastic";
    h.create(h.pod("shrink", "elastic-0-a", "elastic", 2, 4));
    h.create(h.pod("shrink", "elastic-1-a", "elastic", 2, 4));
    JobSubmitted job = h.awaitSubmission(jobId);
    List<GpuAssignment> both = new ArrayList<>(assign("k2", 0, 1, 2, 3));
    both.addAll(assign("k2", 4, 5, 6, 7));
    h.publish(TopicCatalogue.PLACEMENT_DECISIONS, ExecutorHarness.CLUSTER,
        decision(job, both, "shrink-placed"));
    for (String p : List.of("elastic-0-a", "elastic-1-a")) {
      h.running(h.awaitPod("shrink", p, "bound", ExecutorHarness::bound), past(60));
    }
    awaitLifecycle(jobId, LifecycleType.STARTED);

    // quota's Q7 shrink as placement enacts it: 8 GPUs used under half → restart on 4
    h.publish(TopicCatalogue.EVICTIONS, jobId, eviction(jobId, EvictionKind.SHRINK,
        "q7-shrink", "shrunk (Q7): uses under half of its GPUs; restarts from its "
            + "checkpoint on 4 GPU(s)").setShrinkToGpus(4).build());
    for (String p : List.of("elastic-0-a", "elastic-1-a")) {
      Pod t = h.awaitPod("shrink", p, "terminating", ExecutorHarness::terminating);
      assertThat(t.getMetadata().getAnnotations()).as("an elastic launcher learns the new size")
          .containsEntry("tideline.io/shrink-to-gpus", "4")
          .containsKey("tideline.io/checkpoint-requested");
    }
    h.finishTerminating("shrink");
    assertThat(awaitLifecycle(jobId, LifecycleType.PREEMPTED).getMessage()).startsWith("SHRINK");

    // the controller recreates both workers; placement places the shrunk job: one worker of 4
    h.create(h.pod("shrink", "elastic-0-b", "elastic", 2, 4));
    h.create(h.pod("shrink", "elastic-1-b", "elastic", 2, 4));
    h.publish(TopicCatalogue.PLACEMENT_DECISIONS, ExecutorHarness.CLUSTER,
        decision(job, assign("k3", 0, 1, 2, 3), "shrink-replaced"));
    Pod worker = h.awaitPod("shrink", "elastic-0-b", "bound", ExecutorHarness::bound);
    assertThat(worker.getSpec().getNodeName()).isEqualTo("k3");
    assertThat(worker.getMetadata().getAnnotations()).containsEntry("tideline.io/gpus",
        "0,1,2,3");
    Pod standby = h.awaitPod("shrink", "elastic-1-b", "on standby", p -> "shrink-replaced"
        .equals(p.getMetadata().getAnnotations().get("tideline.io/standby")));
    assertThat(bound(standby)).isFalse();
    assertThat(h.events("shrink", "elastic-1-b", "TidelineStandby")).hasSize(1);

    h.running(worker, past(5));
    JobLifecycle resumed = awaitLifecycle(jobId, LifecycleType.RESUMED);
    assertThat(resumed.getAssignments()).as("quota applies the shrink from what runs")
        .hasSize(4).allMatch(a -> a.getNodeId().equals("k3"));
    assertThat(resumed.getMessage()).contains("1 on standby");
    h.exited(h.get("shrink", "elastic-0-b"), past(1), 0);
    awaitLifecycle(jobId, LifecycleType.COMPLETED);
    assertThat(h.lifecycle(jobId)).extracting(JobLifecycle::getType).containsExactly(
        LifecycleType.STARTED, LifecycleType.PREEMPTED, LifecycleType.RESUMED,
        LifecycleType.COMPLETED);
    assertThat(h.submissions(jobId)).as("the same job").hasSize(1);
  }

  @Test
  void shouldMoveAMigratingJobToItsTargetAndReportItResumedThereNeverPreempted() {
    h.namespace("migrate", "research", "llm");
    ExecutorRuntime e = h.executor("migrate-1");
    await("leadership", e::leading);
    String jobId = "migrate/mover";
    h.create(h.pod("migrate", "mover-0-a", "mover", 1, 2));
    JobSubmitted job = h.awaitSubmission(jobId);
    h.publish(TopicCatalogue.PLACEMENT_DECISIONS, ExecutorHarness.CLUSTER,
        decision(job, assign("k4", 0, 1), "migrate-placed"));
    h.running(h.awaitPod("migrate", "mover-0-a", "bound", ExecutorHarness::bound), past(60));
    awaitLifecycle(jobId, LifecycleType.STARTED);

    // defragmentation, as placement's kernel writes it: a MIGRATED decision and the MIGRATE order
    List<GpuAssignment> target = assign("k1", 6, 7);
    PlacementDecision moved = PlacementDecision.newBuilder(decision(job, target, "defrag-1"))
        .setOutcome(PlacementOutcome.MIGRATED).setDecidedAt(Instant.now()).build();
    h.publish(TopicCatalogue.PLACEMENT_DECISIONS, ExecutorHarness.CLUSTER, moved);
    h.publish(TopicCatalogue.EVICTIONS, jobId, eviction(jobId, EvictionKind.MIGRATE, "defrag-1",
        "T3 passive defrag: frees node k4").setTarget(target).build());
    h.awaitPod("migrate", "mover-0-a", "terminating", ExecutorHarness::terminating);
    h.finishTerminating("migrate");
    h.create(h.pod("migrate", "mover-0-b", "mover", 1, 2));
    Pod there = h.awaitPod("migrate", "mover-0-b", "bound to the target",
        ExecutorHarness::bound);
    assertThat(there.getSpec().getNodeName()).isEqualTo("k1");
    assertThat(there.getMetadata().getAnnotations()).containsEntry("tideline.io/gpus", "6,7")
        .containsEntry("tideline.io/decision", "defrag-1");

    h.running(there, past(5));
    JobLifecycle resumed = awaitLifecycle(jobId, LifecycleType.RESUMED);
    assertThat(resumed.getAssignments()).extracting(a -> a.getNodeId() + "/" + a.getGpuIndex())
        .containsExactly("k1/6", "k1/7");
    assertThat(h.lifecycle(jobId)).extracting(JobLifecycle::getType).as("a migrant is never "
        + "PREEMPTED: placement would release and queue it").containsExactly(
            LifecycleType.STARTED, LifecycleType.RESUMED);
  }

  // ------------------------------------------------------------------------------------------

  private static Eviction.Builder eviction(String jobId, EvictionKind kind, String decisionId,
      String reason) {
    return Eviction.newBuilder().setEvictionId(decisionId + "/" + jobId).setJobId(jobId).setCluster(ExecutorHarness.CLUSTER)
        .setKind(kind).setDecisionId(decisionId).setCheckpointFirst(true).setGraceSeconds(120)
        .setReason(reason).setIssuedAt(Instant.now());
  }

  private static JobLifecycle awaitLifecycle(String jobId, LifecycleType type) {
    await(type + " of " + jobId, () -> h.lifecycle(jobId).stream()
        .anyMatch(l -> l.getType() == type));
    return h.lifecycle(jobId).stream().filter(l -> l.getType() == type).reduce((a, b) -> b)
        .orElseThrow();
  }

  /** A moment just past, to the second (pod states carry seconds), for the kubelet's reports. */
  private static Instant past(long secondsAgo) {
    return Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(secondsAgo);
  }
}
