package io.tideline.core.preemption;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.TestCluster;
import io.tideline.core.cluster.TestJobs;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import io.tideline.core.placement.PlacementConfig;
import io.tideline.core.placement.Placer;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Victim selection asks the placement code, not a GPU count: freed GPUs only count where the
 * preemptor's gang can actually use them.
 */
class PlacementProbeTest {

  static final Instant NOW = Instant.parse("2026-11-02T14:30:00Z");
  static final Instant NEXT_TROUGH = Instant.parse("2026-11-03T00:00:00Z");

  // Node a: v1 and v2, four GPUs each. Node b: v3 on six GPUs, two idle.
  final ClusterSnapshot cluster = TestCluster.cluster()
      .node("a", "D1", "P1", "S1").node("b", "D1", "P1", "S1")
      .runningRange("v1", "a", 0, 4).runningRange("v2", "a", 4, 8)
      .runningRange("v3", "b", 0, 6)
      .build();

  // An online scale-up that needs all eight GPUs of one node as a single worker.
  final JobRequest preemptorJob = TestJobs.training("online-8", 8).workers(1)
      .workloadClass(WorkloadClass.ONLINE_INFERENCE).service("ranker").preemptible(false)
      .build();

  final PreemptionRequest request = Requests.online("online-8").gpus(8).nodes(1).build();
  final PlacementProbe probe = new PlacementProbe(
      new Placer(PlacementConfig.DEFAULTS), cluster, preemptorJob, NOW);

  @Test
  void shouldCallFeasibleOnlyWhatFreesAWholeNode() {
    assertThat(probe.feasibleWithout(request, Set.of())).isFalse();
    // v1 frees four GPUs: six idle in the cluster, but no node with eight.
    assertThat(probe.feasibleWithout(request, Set.of("v1"))).isFalse();
    assertThat(probe.feasibleWithout(request, Set.of("v3"))).isTrue();
    assertThat(probe.feasibleWithout(request, Set.of("v1", "v2"))).isTrue();
  }

  @Test
  void shouldChooseVictimsWhoseEvictionPlacesThePreemptor() {
    RunningJob v1 = victim("v1", 4);
    RunningJob v2 = victim("v2", 4);
    RunningJob v3 = victim("v3", 6);

    PreemptionDecision d = new PreemptionPlanner(PreemptionConfig.DEFAULTS)
        .decide(request, List.of(v1, v2, v3), probe, NOW, NEXT_TROUGH);

    Set<String> chosen = Set.copyOf(d.victims().stream().map(Victim::jobId).toList());
    assertThat(chosen).isNotEmpty();
    assertThat(new Placer(PlacementConfig.DEFAULTS)
        .decideIfReleased(NOW, cluster, preemptorJob, chosen).placed()).isTrue();
  }

  private static RunningJob victim(String id, int gpus) {
    return Jobs.training(id).gpus(gpus).nodes(1).startedAt("2026-11-02T12:00:00Z")
        .lastCheckpointAt("2026-11-02T14:25:00Z").build();
  }
}
