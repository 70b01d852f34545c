package io.tideline.core.placement;

import static io.tideline.core.cluster.TestCluster.cluster;
import static io.tideline.core.pbt.PropertyFailures.assertCatches;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.NodeLedger;
import io.tideline.core.cluster.TestJobs;
import io.tideline.core.model.JobRequest;
import io.tideline.core.pbt.Gens;
import io.tideline.core.pbt.Seed;
import io.tideline.core.pbt.SeededProperty;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Invariants over random job streams on a small two-pod cluster: no GPU is ever booked above 1.0
 * and a gang is placed with all of its GPUs or with none. The property is also run against
 * deliberately broken placers, which it must catch.
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

  /** The placement under test: the real placer or a broken fixture. */
  interface Decider {
    PlacementDecision decide(ClusterSnapshot snapshot, JobRequest job);
  }

  /**
   * Steps: kind 0–3, 1–20 GPUs, 1..gpus workers, 0..min(gpus, 5) nodes, one of seven shares, a
   * release index 0–30; each drawn with its edge cases mixed in.
   */
  static Gen<Step> steps() {
    Gen<Integer> kinds = Gens.ints(0, 3);
    Gen<Integer> gpus = Gens.ints(1, 20);
    Gen<Double> shares = Gens.oneOf(0.1, 0.2, 0.25, 0.3, 0.5, 0.7, 0.75);
    Gen<Integer> releases = Gens.ints(0, 30);
    return in -> {
      int kind = kinds.generate(in);
      int g = gpus.generate(in);
      int w = Gens.ints(1, g).generate(in);
      int n = Gens.ints(0, Math.min(g, 5)).generate(in);
      return new Step(kind, g, w, n, shares.generate(in), releases.generate(in));
    };
  }

  /** Streams of 0 to 40 steps. */
  static Gen<List<Step>> streams() {
    return Gens.lists(steps(), 0, 40);
  }

  @SeededProperty
  void noGpuIsOverbookedAndGangsAreAllOrNothing(Seed seed) {
    neverOverbooksAndPlacesGangsWhole(seed, (snap, job) -> placer.decide(NOW, snap, job));
  }

  void neverOverbooksAndPlacesGangsWhole(Seed seed, Decider decider) {
    seed.qt(300).forAll(streams()).checkAssert(stream -> run(stream, decider));
  }

  @Test
  void shouldCatchAPlacerThatPlacesPartOfAGang() {
    // broken: a placed gang of several GPUs loses its last assignment
    Decider partial = (snap, job) -> {
      PlacementDecision d = placer.decide(NOW, snap, job);
      if (!d.placed() || d.assignments().size() < 2) {
        return d;
      }
      return new PlacementDecision(d.jobId(), d.ledgerVersion(), true,
          d.assignments().subList(0, d.assignments().size() - 1), d.reason(), d.level(),
          d.crossDomain(), d.score(), d.trace());
    };

    assertCatches(seed -> neverOverbooksAndPlacesGangsWhole(seed, partial), "placed whole");
  }

  @Test
  void shouldCatchAPlacerThatDecidesOnAStaleSnapshot() {
    // broken: the placer decides on the empty cluster instead of the current ledger, so it books
    // GPUs others already hold (the ledger's guard refuses the booking when it is applied)
    Decider stale = (snap, job) -> placer.decide(NOW, smallCluster(), job);

    assertCatches(seed -> neverOverbooksAndPlacesGangsWhole(seed, stale), "would hold");
  }

  private void run(List<Step> stream, Decider decider) {
    ClusterSnapshot snap = smallCluster();
    int seq = 0;
    for (Step s : stream) {
      String id = "j" + (seq++);
      if (s.kind() == 3) {
        snap = releaseOne(snap, s.releaseIndex());
        continue;
      }
      JobRequest job = switch (s.kind()) {
        case 0 -> TestJobs.training(id, s.gpus()).workers(s.workers()).build();
        case 1 -> TestJobs.training(id, s.gpus()).nodes(s.nodes()).build();
        default -> TestJobs.instance(id, s.share()).build();
      };
      double idleBefore = snap.idleGpus();
      PlacementDecision d = decider.decide(snap, job);
      if (d.placed()) {
        // gang placed fully: the exact demand, distinct GPUs, each within its free share
        assertThat(d.gpuShare()).as("%s placed whole", id).isCloseTo(job.gpuDemand(),
            org.assertj.core.data.Offset.offset(1e-9));
        assertThat(d.assignments().stream().map(GpuAssignment::gpu).distinct().count())
            .as("%s on distinct GPUs", id).isEqualTo(d.assignments().size());
        if (job.nodes() > 0) {
          assertThat(d.nodeIds()).as("%s on exactly its nodes", id).hasSize(job.nodes());
        }
        snap = Placer.apply(snap, job, d);
      } else {
        assertThat(d.assignments()).as("%s unplaced, nothing assigned", id).isEmpty();
        assertThat(d.reason()).isNotNull();
        if (!job.fractional() && d.reason() == UnplaceableReason.INSUFFICIENT_CAPACITY) {
          assertThat(idleBefore).as("%s refused for capacity", id).isLessThan(job.gpuCount());
        }
      }
      assertNoGpuAboveOne(snap);
    }
  }

  /** The ledger without the running job at {@code index} (modulo their number), if any. */
  static ClusterSnapshot releaseOne(ClusterSnapshot snap, int index) {
    List<String> running = List.copyOf(snap.allocations().keySet());
    return running.isEmpty() ? snap
        : snap.withoutJobs(Set.of(running.get(index % running.size())));
  }

  private static void assertNoGpuAboveOne(ClusterSnapshot snap) {
    for (int n = 0; n < snap.topology().size(); n++) {
      NodeLedger l = snap.ledger(n);
      for (int g = 0; g < l.gpuCount(); g++) {
        double sum = l.holders(g).values().stream().mapToDouble(Double::doubleValue).sum();
        assertThat(sum).as("GPU %d of node %d booked", g, n)
            .isLessThanOrEqualTo(1.0 + ClusterSnapshot.SHARE_EPSILON);
        assertThat(l.used(g)).isLessThanOrEqualTo(1.0);
      }
    }
  }
}
