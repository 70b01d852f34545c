package io.tideline.core.placement;

import static io.tideline.core.cluster.TestCluster.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.TestJobs;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.Resources;
import io.tideline.core.trace.TraceEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Scenarios of issue #20 point 2 (ADR 0037): with {@link NodeScoring.Rule#FRAGMENTATION} the
 * placer ranks single-node placements by how much they grow the expected fragmentation under the
 * demand mix, names that term in the trace, and leaves the best-fit rule selectable.
 */
class FragmentationScoringTest {

  static final Instant NOW = Instant.parse("2026-11-02T14:00:00Z");
  static final long GIB = 1L << 30;
  final Placer bestFit = new Placer(PlacementConfig.DEFAULTS);

  static Placer fragmentation(List<JobRequest> expected) {
    return new Placer(PlacementConfig.DEFAULTS.withScoring(
        NodeScoring.fragmentation(DemandMix.of(expected, DemandMix.DEFAULT_MAX_SHAPES))));
  }

  /** A small T4 node (2 GPUs) and a larger A100 node (4 GPUs) under one switch. */
  static ClusterSnapshot smallT4AndLargeA100() {
    return cluster().model("T4").gpusPerNode(2).node("t4", "D1", "P1", "S1")
        .model("A100").gpusPerNode(4).node("a100", "D1", "P1", "S1").build();
  }

  static List<JobRequest> many(int n, TestJobs shape) {
    List<JobRequest> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(shape.build());
    }
    return out;
  }

  @Test
  void shouldKeepFlexiblePodsOffTheModelsConstrainedPodsNeed() {
    List<JobRequest> mix = new ArrayList<>(many(3, TestJobs.training("t4-only", 2).workers(1)
        .models("T4")));
    mix.addAll(many(1, TestJobs.training("any", 1)));
    JobRequest flexible = TestJobs.training("flex", 1).build();

    PlacementDecision old = bestFit.decide(NOW, smallT4AndLargeA100(), flexible);
    PlacementDecision scored = fragmentation(mix).decide(NOW, smallT4AndLargeA100(), flexible);

    // best fit takes the fewest usable GPUs: the small T4 node the constrained pods need
    assertThat(old.nodeIds()).containsExactly("t4");
    assertThat(scored.nodeIds()).containsExactly("a100");
    assertThat(scored.trace()).anySatisfy(t -> {
      assertThat(t.rule()).isEqualTo("T2 fragmentation score");
      assertThat(t.subject()).isEqualTo("a100");
    });
  }

  @Test
  void shouldNotExhaustCpuAheadOfGpusWithPodsThatAskNoGpu() {
    ClusterSnapshot snap = cluster()
        .allocatable(Resources.of(16_000, 128 * GIB)).node("n1", "D1", "P1", "S1")
        .allocatable(Resources.of(64_000, 512 * GIB)).node("n2", "D1", "P1", "S1").build();
    List<JobRequest> mix = many(4, TestJobs.training("gpu-pod", 1)
        .resources(Resources.of(8_000, 16 * GIB)));
    JobRequest cpuOnly = TestJobs.pods("etl", 1, Resources.of(12_000, 8 * GIB)).build();

    PlacementDecision old = bestFit.decide(NOW, snap, cpuOnly);
    PlacementDecision scored = fragmentation(mix).decide(NOW, snap, cpuOnly);

    // n1 would keep 4 cores: its 8 idle GPUs could no longer take an 8-core GPU pod
    assertThat(old.workers()).containsOnlyKeys("n1");
    assertThat(scored.workers()).containsOnlyKeys("n2");
    assertThat(scored.trace()).extracting(TraceEntry::rule).contains("T2 fragmentation score");
  }

  @Test
  void shouldShareAGpuWhereTheLeftoverStillFitsTheExpectedShare() {
    // g0 of n1 has 0.5 free, g0 of n2 0.7 free; expected instances take 0.5
    ClusterSnapshot snap = cluster().gpusPerNode(2).node("n1", "D1", "P1", "S1")
        .node("n2", "D1", "P1", "S1").instance("a", "n1", 0, 0.5).instance("b", "n2", 0, 0.3)
        .build();
    List<JobRequest> mix = many(2, TestJobs.instance("half", 0.5));
    JobRequest small = TestJobs.instance("small", 0.2).build();

    PlacementDecision old = bestFit.decide(NOW, snap, small);
    PlacementDecision scored = fragmentation(mix).decide(NOW, snap, small);

    // best fit: the tightest leftover (n1 g0 keeps 0.3, too little for a 0.5 instance)
    assertThat(old.assignments().get(0).nodeId()).isEqualTo("n1");
    // fragmentation: n2 g0 keeps exactly 0.5, still usable by the expected instances
    assertThat(scored.assignments().get(0).nodeId()).isEqualTo("n2");
    assertThat(scored.assignments().get(0).gpuIndex()).isZero();
  }

  @Test
  void shouldDecideAsBestFitWhenNoDemandIsExpected() {
    JobRequest flexible = TestJobs.training("flex", 1).build();

    PlacementDecision scored = fragmentation(List.of()).decide(NOW, smallT4AndLargeA100(),
        flexible);

    assertThat(scored.nodeIds()).containsExactly("t4");
    assertThat(scored.trace()).extracting(TraceEntry::rule)
        .doesNotContain("T2 fragmentation score");
  }
}
