package io.tideline.core.placement;

import static io.tideline.core.pbt.PropertyFailures.assertCatches;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.cluster.Allocation;
import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.Node;
import io.tideline.core.cluster.NodeLedger;
import io.tideline.core.cluster.SwitchPath;
import io.tideline.core.cluster.TestJobs;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.Resources;
import io.tideline.core.pbt.Gens;
import io.tideline.core.pbt.Seed;
import io.tideline.core.pbt.SeededProperty;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Issue #20's invariant over random clusters and random requests (ADR 0030): after any sequence
 * of placements and releases, no node holds more CPU, memory or any extended resource than it
 * declares allocatable. Each decision is checked against the nodes before it is booked, with the
 * charge rule written out here (a worker per started {@code gpus / gangSize} GPUs on a node, a
 * fractional instance one worker, a GPU-less job its pods), and the ledger after it against the
 * running jobs. Also run against a placer blind to resources, which it must catch.
 */
class NodeResourcesPropertiesTest {

  static final Instant NOW = Instant.parse("2026-11-02T14:00:00Z");
  static final long GIB = 1L << 30;
  static final String RDMA = "rdma/hca";
  final Placer placer = new Placer(PlacementConfig.DEFAULTS);

  /** A node: GPUs, CPU (0 = undeclared), memory (0 = undeclared), RDMA NICs, switch. */
  record NodeShape(int gpus, long cpuMillis, long memoryBytes, long rdma, int asw) {}

  /**
   * A step: 0 a gang of workers, 1 an exact spread, 2 a fractional instance, 3 GPU-less pods,
   * 4 a release; each worker asking the given CPU, memory and RDMA NICs.
   */
  record Step(int kind, int gpus, int workers, int nodes, double share, long cpuMillis,
      long memoryBytes, long rdma, int releaseIndex) {}

  record Scenario(List<NodeShape> nodes, List<Step> steps) {}

  /** Nodes of 4 or 8 GPUs, 0 or 4–64 cores, 0 or 16–256 GiB, 0–2 NICs, under 2 switches. */
  static Gen<NodeShape> nodeShapes() {
    Gen<Integer> gpus = Gens.oneOf(4, 8);
    Gen<Long> cores = Gens.longs(0, 64);
    Gen<Long> gib = Gens.longs(0, 256);
    Gen<Long> nics = Gens.longs(0, 2);
    Gen<Integer> asw = Gens.ints(0, 1);
    return in -> {
      long c = cores.generate(in);
      long m = gib.generate(in);
      return new NodeShape(gpus.generate(in), c < 4 ? 0 : c * 1000, m < 16 ? 0 : m * GIB,
          nics.generate(in), asw.generate(in));
    };
  }

  /** Steps of 1–12 GPUs, up to 16 cores and 96 GiB and 1 NIC per worker (0 = asks none). */
  static Gen<Step> steps() {
    Gen<Integer> kinds = Gens.ints(0, 4);
    Gen<Integer> gpus = Gens.ints(1, 12);
    Gen<Double> shares = Gens.oneOf(0.25, 0.5, 0.75);
    Gen<Long> cpu = Gens.longs(0, 32).map(h -> h * 500);
    Gen<Long> mem = Gens.longs(0, 96).map(g -> g * GIB);
    Gen<Long> nics = Gens.longs(0, 1);
    Gen<Integer> releases = Gens.ints(0, 30);
    return in -> {
      int kind = kinds.generate(in);
      int g = gpus.generate(in);
      int w = Gens.ints(1, g).generate(in);
      int n = Gens.ints(0, Math.min(g, 4)).generate(in);
      return new Step(kind, g, w, n, shares.generate(in), cpu.generate(in), mem.generate(in),
          nics.generate(in), releases.generate(in));
    };
  }

  static Gen<Scenario> scenarios() {
    Gen<List<NodeShape>> nodes = Gens.lists(nodeShapes(), 1, 6);
    Gen<List<Step>> steps = Gens.lists(steps(), 0, 40);
    return in -> new Scenario(nodes.generate(in), steps.generate(in));
  }

  @SeededProperty
  void noNodeIsOverDrawnInCpuMemoryOrAnyExtendedResource(Seed seed) {
    neverOverDraws(seed, (snap, job) -> placer.decide(NOW, snap, job));
  }

  void neverOverDraws(Seed seed, PlacementPropertiesTest.Decider decider) {
    seed.qt(300).forAll(scenarios()).checkAssert(s -> run(s, decider));
  }

  @Test
  void shouldCatchAPlacerBlindToCpuMemoryAndExtendedResources() {
    // broken: decides as if the job asked GPUs only (the placer before issue #20)
    PlacementPropertiesTest.Decider blind = (snap, job) -> job.gpuless()
        ? placer.decide(NOW, snap, job)
        : placer.decide(NOW, snap, job.withResources(Resources.NONE));

    assertCatches(seed -> neverOverDraws(seed, blind), "overcommitted");
  }

  private void run(Scenario scenario, PlacementPropertiesTest.Decider decider) {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < scenario.nodes().size(); i++) {
      NodeShape s = scenario.nodes().get(i);
      Resources allocatable = new Resources(s.cpuMillis(), s.memoryBytes(),
          s.rdma() == 0 ? new TreeMap<>() : new TreeMap<>(Map.of(RDMA, s.rdma())));
      nodes.add(new Node("n" + i, "H100", s.gpus(), "n" + i,
          new SwitchPath("D1", "P1", "S" + s.asw()), allocatable));
    }
    ClusterSnapshot snap = ClusterSnapshot.empty(nodes);
    int seq = 0;
    for (Step s : scenario.steps()) {
      String id = "j" + (seq++);
      if (s.kind() == 4) {
        snap = PlacementPropertiesTest.releaseOne(snap, s.releaseIndex());
        continue;
      }
      Resources each = new Resources(s.cpuMillis(), s.memoryBytes(),
          s.rdma() == 0 ? new TreeMap<>() : new TreeMap<>(Map.of(RDMA, s.rdma())));
      JobRequest job = switch (s.kind()) {
        case 0 -> TestJobs.training(id, s.gpus()).workers(s.workers()).resources(each).build();
        case 1 -> TestJobs.training(id, s.gpus()).nodes(s.nodes()).resources(each).build();
        case 2 -> TestJobs.instance(id, s.share()).resources(each).build();
        default -> TestJobs.pods(id, s.workers(), each.isNone() ? Resources.of(500, 0) : each)
            .build();
      };
      PlacementDecision d = decider.decide(snap, job);
      if (!d.placed()) {
        continue;
      }
      // 1. the decision, before it is booked: every node it touches keeps within allocatable
      TreeMap<String, Integer> workers = workersOf(job, d);
      for (Map.Entry<String, Integer> e : workers.entrySet()) {
        Node node = snap.topology().node(snap.topology().indexOf(e.getKey()));
        Resources after = snap.ledger(e.getKey()).allocated().plus(
            job.resources().times(e.getValue()));
        assertWithin(node, after, id + " placed");
      }
      snap = Placer.apply(snap, job, d);
      // 2. the ledger: what each node holds is what its running jobs' workers ask, and fits
      for (Node node : snap.topology().nodes()) {
        Resources held = Resources.NONE;
        for (Allocation a : snap.allocations().values()) {
          held = held.plus(a.chargeOn(node.id()));
        }
        NodeLedger l = snap.ledger(node.id());
        assertThat(l.allocated()).as("%s holds what its jobs ask", node.id()).isEqualTo(held);
        assertWithin(node, l.allocated(), "ledger after " + id);
      }
    }
  }

  /** The charge rule, written out independently of {@code JobRequest.workersFor}. */
  private static TreeMap<String, Integer> workersOf(JobRequest job, PlacementDecision d) {
    TreeMap<String, Integer> out = new TreeMap<>(d.workers());
    if (job.gpuless()) {
      return out;
    }
    TreeMap<String, Integer> gpus = new TreeMap<>();
    for (GpuAssignment a : d.assignments()) {
      gpus.merge(a.nodeId(), 1, Integer::sum);
    }
    int perWorker = job.gangSize() > 0 && job.gpuCount() % job.gangSize() == 0
        ? job.gpuCount() / job.gangSize() : 1;
    gpus.forEach((n, k) -> out.put(n, job.fractional() ? 1 : (k + perWorker - 1) / perWorker));
    return out;
  }

  private static void assertWithin(Node node, Resources held, String when) {
    Resources cap = node.allocatable();
    if (cap.cpuMillis() > 0) {
      assertThat(held.cpuMillis()).as("%s: node %s cpu overcommitted", when, node.id())
          .isLessThanOrEqualTo(cap.cpuMillis());
    }
    if (cap.memoryBytes() > 0) {
      assertThat(held.memoryBytes()).as("%s: node %s memory overcommitted", when, node.id())
          .isLessThanOrEqualTo(cap.memoryBytes());
    }
    held.extended().forEach((name, q) -> assertThat(q)
        .as("%s: node %s %s overcommitted", when, node.id(), name)
        .isLessThanOrEqualTo(cap.extended(name)));
  }
}
