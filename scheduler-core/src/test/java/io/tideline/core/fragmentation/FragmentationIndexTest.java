package io.tideline.core.fragmentation;

import static io.tideline.core.cluster.TestCluster.cluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.TestJobs;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class FragmentationIndexTest {

  static DemandHistogram histogram(Map<Integer, Long> counts) {
    return new DemandHistogram(new TreeMap<>(counts));
  }

  /** n-full: 8 used; n-five: 3 used, 5 idle; n-free: 8 idle; n-shared: one GPU at 0.25. */
  static ClusterSnapshot fourNodes() {
    return cluster()
        .node("n-five", "D1", "P1", "S1").node("n-free", "D1", "P1", "S1")
        .node("n-full", "D1", "P1", "S1").node("n-shared", "D1", "P1", "S1")
        .runningRange("a", "n-full", 0, 8).runningRange("b", "n-five", 0, 3)
        .instance("i", "n-shared", 0, 0.25).build();
  }

  @Test
  void shouldStrandEveryIdleGpuOfAPartlyUsedNodeForWholeNodeDemand() {
    FragmentationIndex fi = new FragmentationIndex(DemandHistogram.wholeNode(8));
    ClusterSnapshot snap = fourNodes();

    NodeFragmentation five = fi.node(snap, snap.topology().indexOf("n-five"));
    assertThat(five.idleGpus()).isEqualTo(5);
    assertThat(five.strandedGpus()).isEqualTo(5.0);
    assertThat(five.index()).isEqualTo(1.0);
    assertThat(fi.node(snap, snap.topology().indexOf("n-free")).index()).isZero();
    assertThat(fi.node(snap, snap.topology().indexOf("n-full")).index()).isZero();

    ClusterFragmentation c = fi.cluster(snap);
    // idle: 5 + 8 + 0 + 7 (the shared GPU is not idle); stranded: 5 + 7
    assertThat(c.idleGpus()).isEqualTo(20);
    assertThat(c.strandedGpus()).isEqualTo(12.0);
    assertThat(c.index()).isCloseTo(0.6, within(1e-12));
    assertThat(c.nodes()).extracting(NodeFragmentation::nodeId)
        .containsExactly("n-shared", "n-five", "n-free", "n-full");
  }

  @Test
  void shouldWeighStrandingByTheDemandedShapes() {
    ClusterSnapshot snap = fourNodes();
    int five = snap.topology().indexOf("n-five");

    // half the demand is single GPUs (serve anything), half whole nodes (serve nothing here)
    assertThat(new FragmentationIndex(histogram(Map.of(1, 10L, 8, 10L))).node(snap, five).index())
        .isCloseTo(0.5, within(1e-12));
    // 2-GPU demand strands 1 of 5, 4-GPU demand strands 1 of 5
    assertThat(new FragmentationIndex(histogram(Map.of(2, 1L, 4, 1L))).node(snap, five)
        .strandedGpus()).isCloseTo(1.0, within(1e-12));
    // single-GPU demand strands nothing
    assertThat(new FragmentationIndex(histogram(Map.of(1, 1L))).cluster(snap).index()).isZero();
  }

  @Test
  void shouldStrandAllIdleGpusOfANodeTooSmallForTheShape() {
    FragmentationIndex fi = new FragmentationIndex(histogram(Map.of(8, 1L)));

    assertThat(fi.stranded(4, 4)).isEqualTo(4.0);
    assertThat(fi.stranded(8, 8)).isZero();
  }

  @Test
  void shouldDeriveShapesFromRequests() {
    assertThat(DemandHistogram.shapeOf(TestJobs.instance("i", 0.25).build())).isEqualTo(1);
    assertThat(DemandHistogram.shapeOf(TestJobs.training("a", 8).build())).isEqualTo(1);
    assertThat(DemandHistogram.shapeOf(TestJobs.training("b", 8).workers(1).build()))
        .isEqualTo(8);
    assertThat(DemandHistogram.shapeOf(TestJobs.training("c", 16).workers(2).build()))
        .isEqualTo(8);
    assertThat(DemandHistogram.shapeOf(TestJobs.training("d", 8).nodes(3).build())).isEqualTo(3);

    DemandHistogram h = DemandHistogram.of(List.of(TestJobs.training("b", 8).workers(1).build(),
        TestJobs.training("e", 32).workers(1).build(), TestJobs.instance("i", 0.5).build()), 8);
    assertThat(h.counts()).containsExactly(Map.entry(1, 1L), Map.entry(8, 2L));
  }
}
