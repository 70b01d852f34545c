package io.tideline.core.placement;

import static io.tideline.core.cluster.TestCluster.cluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tideline.core.cluster.Allocation;
import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.TestJobs;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.Resources;
import io.tideline.core.trace.TraceEntry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Scenarios of issue #20 point 1 (ADR 0030): the placer sees every resource a node has, CPU,
 * memory and extended resources, never overcommits one, names the one that did not fit, and
 * places pods without GPUs on GPU nodes.
 */
class NodeResourcesPlacementTest {

  static final Instant NOW = Instant.parse("2026-11-02T14:00:00Z");
  static final long GIB = 1L << 30;
  final Placer placer = new Placer(PlacementConfig.DEFAULTS);

  /** n1 (16 cores, 128 GiB) and n2 (64 cores, 512 GiB), 8 GPUs each, one access switch. */
  static ClusterSnapshot smallAndLargeHosts() {
    return cluster()
        .allocatable(Resources.of(16_000, 128 * GIB)).node("n1", "D1", "P1", "S1")
        .allocatable(Resources.of(64_000, 512 * GIB)).node("n2", "D1", "P1", "S1")
        .build();
  }

  ClusterSnapshot place(ClusterSnapshot snap, JobRequest job) {
    PlacementDecision d = placer.decide(NOW, snap, job);
    assertThat(d.placed()).as("%s placed: %s", job.jobId(), d.trace()).isTrue();
    return Placer.apply(snap, job, d);
  }

  static List<String> details(PlacementDecision d) {
    return d.trace().stream().map(TraceEntry::detail).toList();
  }

  @Test
  void shouldSkipANodeWhoseCpuIsExhaustedAndNameCpuInTheTrace() {
    // n1 keeps 7 idle GPUs but only 2 of its 16 cores
    ClusterSnapshot snap = place(smallAndLargeHosts(), TestJobs.training("busy", 1)
        .resources(Resources.of(14_000, 8 * GIB)).build());
    assertThat(snap.ledger("n1").allocated().cpuMillis()).isEqualTo(14_000);

    JobRequest job = TestJobs.training("j", 2).workers(1)
        .resources(Resources.of(8_000, 16 * GIB)).build();
    PlacementDecision d = placer.decide(NOW, snap, job);

    // GPUs alone would pick n1, the fuller node; its CPU cannot hold the worker
    assertThat(d.placed()).isTrue();
    assertThat(d.nodeIds()).containsExactly("n2");
    assertThat(details(d)).anySatisfy(t -> assertThat(t)
        .contains("cpu: needs 8000m, node has 2000m free"));
  }

  @Test
  void shouldRefuseWhenNoNodeHasTheMemoryAndSayWhichResource() {
    JobRequest job = TestJobs.training("j", 1).resources(Resources.of(1_000, 600 * GIB)).build();

    PlacementDecision d = placer.decide(NOW, smallAndLargeHosts(), job);

    assertThat(d.placed()).isFalse();
    assertThat(d.reason()).isEqualTo(UnplaceableReason.INSUFFICIENT_CAPACITY);
    assertThat(details(d)).anySatisfy(t -> assertThat(t).contains("2 node(s) short of memory")
        .contains("memory: needs " + 600 * GIB + "B, node has " + 512 * GIB + "B free"));
  }

  @Test
  void shouldChargeEveryWorkerOfAGangToTheNodeItRunsOn() {
    // 4 one-GPU workers of 6 cores: n1 (16 cores) holds 2 of them, the rest go to n2
    ClusterSnapshot small = cluster()
        .allocatable(Resources.of(16_000, 0)).node("n1", "D1", "P1", "S1")
        .allocatable(Resources.of(12_000, 0)).node("n2", "D1", "P1", "S1").build();
    JobRequest job = TestJobs.training("gang", 4).workers(4)
        .resources(Resources.of(6_000, 0)).build();

    PlacementDecision d = placer.decide(NOW, small, job);
    ClusterSnapshot after = Placer.apply(small, job, d);

    assertThat(d.assignments()).hasSize(4);
    assertThat(after.ledger("n1").allocated().cpuMillis()).isEqualTo(12_000);
    assertThat(after.ledger("n2").allocated().cpuMillis()).isEqualTo(12_000);
    // released, the nodes hold nothing again
    ClusterSnapshot released = after.withoutJobs(Set.of("gang"));
    assertThat(released.ledger("n1").allocated()).isEqualTo(Resources.NONE);
    assertThat(released.ledger("n2").allocated()).isEqualTo(Resources.NONE);
  }

  @Test
  void shouldPlacePodsWithoutGpusOnAGpuNodeAndTakeNoGpu() {
    JobRequest pods = TestJobs.pods("etl", 3, Resources.of(4_000, 8 * GIB)).build();

    PlacementDecision d = placer.decide(NOW, smallAndLargeHosts(), pods);
    ClusterSnapshot after = Placer.apply(smallAndLargeHosts(), pods, d);

    // the tightest node holding all three: n1 has room for 4, n2 for 16
    assertThat(d.placed()).isTrue();
    assertThat(d.assignments()).isEmpty();
    assertThat(d.workers()).isEqualTo(Map.of("n1", 3));
    assertThat(d.level()).isEqualTo(io.tideline.core.cluster.TopologyLevel.NODE);
    assertThat(after.idleGpus()).isEqualTo(16);
    assertThat(after.ledger("n1").allocated()).isEqualTo(Resources.of(12_000, 24 * GIB));
    assertThat(after.ledger("n1").jobs()).containsExactly("etl");
    assertThat(after.withoutJobs(Set.of("etl")).ledger("n1").allocated())
        .isEqualTo(Resources.NONE);
  }

  @Test
  void shouldSpreadPodsWithoutGpusWhenNoNodeHoldsThemAll() {
    JobRequest pods = TestJobs.pods("etl", 18, Resources.of(4_000, 0)).build();

    PlacementDecision d = placer.decide(NOW, smallAndLargeHosts(), pods);

    // roomiest first: 16 on n2, the remaining 2 on n1
    assertThat(d.workers()).isEqualTo(Map.of("n1", 2, "n2", 16));
  }

  @Test
  void shouldRefuseAnExtendedResourceTheNodeDoesNotList() {
    ClusterSnapshot snap = cluster()
        .node("plain", "D1", "P1", "S1")
        .allocatable(Resources.NONE.with("rdma/hca", 1)).node("rdma", "D1", "P1", "S1")
        .build();
    JobRequest job = TestJobs.training("j", 8).workers(1)
        .resources(Resources.NONE.with("rdma/hca", 1)).build();

    PlacementDecision first = placer.decide(NOW, snap, job);
    ClusterSnapshot after = Placer.apply(snap, job, first);
    PlacementDecision second = placer.decide(NOW, after,
        TestJobs.training("k", 8).workers(1).resources(Resources.NONE.with("rdma/hca", 1))
            .build());

    assertThat(first.nodeIds()).containsExactly("rdma");
    assertThat(second.placed()).isFalse();
    assertThat(details(second)).anySatisfy(t -> assertThat(t)
        .contains("rdma/hca: needs 1, node has 0 free"));
  }

  @Test
  void shouldKeepAFractionalInstanceOffANodeWithoutMemoryLeft() {
    ClusterSnapshot snap = cluster()
        .allocatable(Resources.of(0, 32 * GIB)).node("n1", "D1", "P1", "S1")
        .allocatable(Resources.of(0, 512 * GIB)).node("n2", "D1", "P1", "S1").build();
    snap = place(snap, TestJobs.instance("a", 0.5).resources(Resources.of(0, 24 * GIB)).build());
    assertThat(snap.ledger("n1").partialGpus()).isEqualTo(1);

    PlacementDecision d = placer.decide(NOW, snap,
        TestJobs.instance("b", 0.25).resources(Resources.of(0, 16 * GIB)).build());

    // n1's half-used GPU would be the tightest fit; its memory is not there
    assertThat(d.nodeIds()).containsExactly("n2");
  }

  @Test
  void shouldPlaceExactlyAsBeforeOnNodesThatDeclareNoCpuOrMemory() {
    ClusterSnapshot snap = cluster().node("a1", "D1", "P1", "S1").node("a2", "D1", "P1", "S2")
        .running("x", "a1", 0, 1, 2).build();
    JobRequest plain = TestJobs.training("j", 4).workers(2).build();

    PlacementDecision without = placer.decide(NOW, snap, plain);
    PlacementDecision with = placer.decide(NOW, snap,
        plain.withResources(Resources.of(64_000, 1024 * GIB)));

    assertThat(with.assignments()).isEqualTo(without.assignments());
    assertThat(with.trace()).isEqualTo(without.trace());
    assertThat(with.score()).isEqualTo(without.score());
  }

  @Test
  void shouldRefuseAJobWithoutGpusThatAsksNothing() {
    PlacementDecision d = placer.decide(NOW, smallAndLargeHosts(),
        TestJobs.pods("nothing", 1, Resources.NONE).build());

    assertThat(d.reason()).isEqualTo(UnplaceableReason.INVALID_SHAPE);
    assertThat(details(d)).anySatisfy(t -> assertThat(t).contains("no CPU, memory or extended"));
  }

  @Test
  void shouldRefuseToBookAnAllocationThatOvercommitsCpu() {
    JobRequest job = TestJobs.training("j", 2).workers(2)
        .resources(Resources.of(10_000, 0)).build();

    // two workers of 10 cores on n1's 16: the ledger's own guard refuses, whoever decided
    assertThatThrownBy(() -> smallAndLargeHosts().withAllocation(new Allocation(job,
        List.of(new GpuAssignment("n1", 0, 1.0), new GpuAssignment("n1", 1, 1.0)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("node n1 would be overcommitted by j: cpu: needs 20000m");
  }
}
