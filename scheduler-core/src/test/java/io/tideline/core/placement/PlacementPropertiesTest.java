package io.tideline.core.placement;

import static io.tideline.core.cluster.TestCluster.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.NodeLedger;
import io.tideline.core.cluster.TestJobs;
import io.tideline.core.model.JobRequest;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * Invariants over random job streams on a small two-pod cluster: no GPU is ever booked above 1.0
 * and a gang is placed with all of its GPUs or with none.
 */
class PlacementPropertiesTest {

  static final Instant NOW = Instant.parse("2026-11-02T14:00:00Z");
  final Placer placer = new Placer(PlacementConfig.DEFAULTS);

  static ClusterSnapshot smallCluster() {
    return cluster()
        .node("a1", "D1", "P1", "S1").node("a2", "D1", "P1", "S1")
        .node("b1", "D1", "P1", "S2").node("c1", "D1", "P2", "S3")
        .gpusPerNode(4).node("c2", "D1", "P2", "S3").build();
  }

  /** A job stream step: a gang, an exact spread, a fractional instance, or a release. */
  record Step(int kind, int gpus, int workers, int nodes, double share, int releaseIndex) {}

  @Provide
  Arbitrary<Step> steps() {
    return Arbitraries.integers().between(0, 3).flatMap(kind -> {
      Arbitrary<Integer> gpus = Arbitraries.integers().between(1, 20);
      return gpus.flatMap(g -> Arbitraries.integers().between(1, g).flatMap(w ->
          Arbitraries.integers().between(0, Math.min(g, 5)).flatMap(n ->
              Arbitraries.of(0.1, 0.2, 0.25, 0.3, 0.5, 0.7, 0.75).flatMap(s ->
                  Arbitraries.integers().between(0, 30).map(r ->
                      new Step(kind, g, w, n, s, r))))));
    });
  }

  @Property(tries = 300)
  void noGpuIsOverbookedAndGangsAreAllOrNothing(
      @ForAll @Size(max = 40) List<@net.jqwik.api.From("steps") Step> stream) {
    ClusterSnapshot snap = smallCluster();
    int seq = 0;
    for (Step s : stream) {
      String id = "j" + (seq++);
      if (s.kind() == 3) {
        List<String> running = List.copyOf(snap.allocations().keySet());
        if (!running.isEmpty()) {
          snap = snap.withoutJobs(Set.of(running.get(s.releaseIndex() % running.size())));
        }
        continue;
      }
      JobRequest job = switch (s.kind()) {
        case 0 -> TestJobs.training(id, s.gpus()).workers(s.workers()).build();
        case 1 -> TestJobs.training(id, s.gpus()).nodes(s.nodes()).build();
        default -> TestJobs.instance(id, s.share()).build();
      };
      double idleBefore = snap.idleGpus();
      PlacementDecision d = placer.decide(NOW, snap, job);
      if (d.placed()) {
        // gang placed fully: the exact demand, distinct GPUs, each within its free share
        assertThat(d.gpuShare()).isCloseTo(job.gpuDemand(),
            org.assertj.core.data.Offset.offset(1e-9));
        assertThat(d.assignments().stream().map(GpuAssignment::gpu).distinct().count())
            .isEqualTo(d.assignments().size());
        if (job.nodes() > 0) {
          assertThat(d.nodeIds()).hasSize(job.nodes());
        }
        snap = Placer.apply(snap, job, d);
      } else {
        assertThat(d.assignments()).isEmpty();
        assertThat(d.reason()).isNotNull();
        if (!job.fractional() && d.reason() == UnplaceableReason.INSUFFICIENT_CAPACITY) {
          assertThat(idleBefore).isLessThan(job.gpuCount());
        }
      }
      assertNoGpuAboveOne(snap);
    }
  }

  private static void assertNoGpuAboveOne(ClusterSnapshot snap) {
    for (int n = 0; n < snap.topology().size(); n++) {
      NodeLedger l = snap.ledger(n);
      for (int g = 0; g < l.gpuCount(); g++) {
        double sum = l.holders(g).values().stream().mapToDouble(Double::doubleValue).sum();
        assertThat(sum).isLessThanOrEqualTo(1.0 + ClusterSnapshot.SHARE_EPSILON);
        assertThat(l.used(g)).isLessThanOrEqualTo(1.0);
      }
    }
  }
}
