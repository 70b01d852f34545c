package io.tideline.core.placement;

import static io.tideline.core.pbt.PropertyFailures.assertCatches;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tideline.core.cluster.Allocation;
import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.GpuModelNames;
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
 * The fragmentation score's incremental rule (ADR 0037): the growth {@link FragmentationScore}
 * computes from one read of a node ({@link FragmentationScore#view}) equals the expected
 * fragmentation of the node after the change is really booked minus before it, both measured
 * from the ledger by the definition written out here, for every whole-GPU and fractional change
 * a node can take, over random fleets (two models, declared or undeclared CPU and memory), random
 * fills and random demand mixes; and a view remembered across placements (the placer keeps
 * them across decisions) is the view of the node's ledger now. Each also run against a broken
 * rule (one ignoring the fractional GPU's change, a memo ignoring ledger changes) it must catch.
 */
class FragmentationScorePropertiesTest {

  static final Instant NOW = Instant.parse("2026-11-02T14:00:00Z");
  static final long GIB = 1L << 30;
  static final double EPS = ClusterSnapshot.SHARE_EPSILON;
  static final List<String> MODELS = List.of("H100", "A100");

  /** A node: GPUs, model index, CPU (0 = undeclared), memory (0 = undeclared). */
  record NodeShape(int gpus, int model, long cpuMillis, long memoryBytes) {}

  /** A fill job or a demand shape: GPUs (0 = fractional), share, CPU, memory, model (-1 = any). */
  record Ask(int gpus, double share, long cpuMillis, long memoryBytes, int model) {}

  record Scenario(List<NodeShape> nodes, List<Ask> fill, List<Ask> mix, long chargeCores) {}

  /** How a growth is computed from a view: the rule under test or a broken one. */
  interface Rule {
    double fractional(FragmentationScore score, FragmentationScore.View v, double free,
        double take, Resources charge);
  }

  static Gen<NodeShape> nodes() {
    Gen<Integer> gpus = Gens.oneOf(2, 4, 8);
    Gen<Integer> model = Gens.ints(0, 1);
    Gen<Long> cores = Gens.longs(0, 64);
    Gen<Long> gib = Gens.longs(0, 512);
    return in -> {
      long c = cores.generate(in);
      long m = gib.generate(in);
      return new NodeShape(gpus.generate(in), model.generate(in), c < 8 ? 0 : c * 1000,
          m < 32 ? 0 : m * GIB);
    };
  }

  static Gen<Ask> asks() {
    Gen<Integer> gpus = Gens.oneOf(0, 0, 1, 2, 4, 8);
    Gen<Double> share = Gens.oneOf(0.25, 0.3, 0.5, 0.75);
    Gen<Long> cpu = Gens.longs(0, 16).map(c -> c * 1000);
    Gen<Long> mem = Gens.longs(0, 128).map(g -> g * GIB);
    Gen<Integer> model = Gens.ints(-1, 1);
    return in -> new Ask(gpus.generate(in), share.generate(in), cpu.generate(in),
        mem.generate(in), model.generate(in));
  }

  static Gen<Scenario> scenarios() {
    Gen<List<NodeShape>> nodes = Gens.lists(nodes(), 1, 5);
    Gen<List<Ask>> fill = Gens.lists(asks(), 0, 20);
    Gen<List<Ask>> mix = Gens.lists(asks(), 1, 6);
    Gen<Long> cores = Gens.longs(0, 8);
    return in -> new Scenario(nodes.generate(in), fill.generate(in), mix.generate(in),
        cores.generate(in));
  }

  @SeededProperty
  void incrementalGrowthEqualsTheMeasureAfterBookingMinusBefore(Seed seed) {
    holds(seed, FragmentationScore::fractionalDelta);
  }

  @Test
  void shouldCatchARuleThatIgnoresTheFractionalGpusChange() {
    // broken: scores a fractional placement as if only the CPU and memory changed
    Rule stale = (score, v, free, take, charge) -> score.wholeDelta(v, 0, charge);

    assertCatches(seed -> holds(seed, stale), "growth of");
  }

  /** Where a placement reads a node's view from: the score's memo or a broken cache. */
  interface Views {
    FragmentationScore.View of(FragmentationScore score, ClusterSnapshot snap, int n);
  }

  @SeededProperty
  void aRememberedViewIsTheViewOfTheLedgerNow(Seed seed) {
    remembers(seed, FragmentationScore::view);
  }

  @Test
  void shouldCatchAMemoThatIgnoresLedgerChanges() {
    // broken: remembers a node's view by its index, whatever its ledger holds now
    Map<Integer, FragmentationScore.View> byIndex = new java.util.HashMap<>();
    Views stale = (score, snap, n) -> byIndex.computeIfAbsent(n, k -> score.view(snap, k));

    assertCatches(seed -> {
      byIndex.clear();
      remembers(seed, stale);
    }, "view of");
  }

  /**
   * One score kept across a fill (as the placer keeps it across decisions): after every
   * placement, each node's view measures the node's ledger as it is now.
   */
  void remembers(Seed seed, Views views) {
    seed.qt(200).forAll(scenarios()).checkAssert(s -> {
      List<Node> nodes = nodes(s);
      ClusterSnapshot snap = ClusterSnapshot.empty(nodes);
      DemandMix mix = mix(s);
      FragmentationScore score = new FragmentationScore(mix, snap.topology(),
          GpuModelNames.DEFAULTS);
      Placer placer = new Placer(PlacementConfig.DEFAULTS);
      int seq = 0;
      for (Ask a : s.fill()) {
        for (int n = 0; n < nodes.size(); n++) {
          assertThat(views.of(score, snap, n).expected())
              .as("view of %s after %d placements", nodes.get(n).id(), seq)
              .isCloseTo(measure(mix, nodes.get(n), snap.ledger(n)), within(1e-9));
        }
        JobRequest job = job("fill" + seq++, a);
        PlacementDecision d = placer.decide(NOW, snap, job);
        if (d.placed()) {
          snap = Placer.apply(snap, job, d);
        }
      }
    });
  }

  private static List<Node> nodes(Scenario s) {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < s.nodes().size(); i++) {
      NodeShape n = s.nodes().get(i);
      nodes.add(new Node("n" + i, MODELS.get(n.model()), n.gpus(), "n" + i,
          new SwitchPath("D1", "P1", "S1"), Resources.of(n.cpuMillis(), n.memoryBytes())));
    }
    return nodes;
  }

  private static DemandMix mix(Scenario s) {
    List<JobRequest> expected = new ArrayList<>();
    int seq = 0;
    for (Ask a : s.mix()) {
      expected.add(job("mix" + seq++, a));
    }
    return DemandMix.of(expected, DemandMix.DEFAULT_MAX_SHAPES);
  }

  void holds(Seed seed, Rule rule) {
    seed.qt(300).forAll(scenarios()).checkAssert(s -> check(s, rule));
  }

  private void check(Scenario s, Rule rule) {
    List<Node> nodes = nodes(s);
    // 1. a random fill, placed by the default placer
    Placer placer = new Placer(PlacementConfig.DEFAULTS);
    ClusterSnapshot snap = ClusterSnapshot.empty(nodes);
    int seq = 0;
    for (Ask a : s.fill()) {
      JobRequest job = job("fill" + seq++, a);
      PlacementDecision d = placer.decide(NOW, snap, job);
      if (d.placed()) {
        snap = Placer.apply(snap, job, d);
      }
    }
    DemandMix mix = mix(s);
    FragmentationScore score = new FragmentationScore(mix, snap.topology(), GpuModelNames.DEFAULTS);
    Resources charge = Resources.of(s.chargeCores() * 1000, s.chargeCores() * 8 * GIB);
    // 2. every change each node can take, scored incrementally and measured after booking
    for (int n = 0; n < nodes.size(); n++) {
      Node node = nodes.get(n);
      if (!fits(node, snap.ledger(n), charge)) {
        continue;
      }
      FragmentationScore.View v = score.view(snap, n);
      assertThat(v.expected()).as("measure of %s", node.id())
          .isCloseTo(measure(mix, node, snap.ledger(n)), within(1e-9));
      NodeLedger l = snap.ledger(n);
      List<Integer> idle = new ArrayList<>();
      for (int g = 0; g < l.gpuCount(); g++) {
        if (l.free(g) >= 1.0 - EPS) {
          idle.add(g);
        }
      }
      for (int w = charge.isNone() ? 1 : 0; w <= idle.size(); w++) {
        List<GpuAssignment> take = new ArrayList<>();
        for (int k = 0; k < w; k++) {
          take.add(new GpuAssignment(node.id(), idle.get(k), 1.0));
        }
        JobRequest job = w == 0 ? TestJobs.pods("probe", 1, charge).build()
            : TestJobs.training("probe", w).workers(1).resources(charge).build();
        ClusterSnapshot after = snap.withAllocation(new Allocation(job, take,
            new TreeMap<>(Map.of(node.id(), 1))));
        assertThat(score.wholeDelta(v, w, charge)).as("growth of %s taking %d GPUs", node.id(), w)
            .isCloseTo(measure(mix, node, after.ledger(n)) - v.expected(), within(1e-9));
      }
      for (double share : List.of(0.25, 0.3, 0.5, 0.75)) {
        for (int g = 0; g < l.gpuCount(); g++) {
          if (l.free(g) + EPS < share) {
            continue;
          }
          JobRequest job = TestJobs.instance("probe", share).resources(charge).build();
          ClusterSnapshot after = snap.withAllocation(new Allocation(job,
              List.of(new GpuAssignment(node.id(), g, share)), new TreeMap<>(Map.of(node.id(), 1))));
          assertThat(rule.fractional(score, v, l.free(g), share, charge))
              .as("growth of %s taking %.2f of GPU %d", node.id(), share, g)
              .isCloseTo(measure(mix, node, after.ledger(n)) - v.expected(), within(1e-9));
        }
      }
    }
  }

  private static JobRequest job(String id, Ask a) {
    Resources each = Resources.of(a.cpuMillis(), a.memoryBytes());
    TestJobs t = a.gpus() == 0 ? TestJobs.instance(id, a.share())
        : TestJobs.training(id, a.gpus()).workers(1);
    t = t.resources(each);
    return (a.model() < 0 ? t : t.models(MODELS.get(a.model()))).build();
  }

  private static boolean fits(Node node, NodeLedger l, Resources charge) {
    Resources cap = node.allocatable();
    return (cap.cpuMillis() == 0 || l.allocated().cpuMillis() + charge.cpuMillis() <= cap.cpuMillis())
        && (cap.memoryBytes() == 0
        || l.allocated().memoryBytes() + charge.memoryBytes() <= cap.memoryBytes());
  }

  /**
   * The definition, from the ledger: per shape, the node's free GPU it cannot use — all of it
   * when the model is not allowed or CPU or memory is short, else (fractional) the free on GPUs
   * with less than its share, else (whole) the free on partly used GPUs if enough GPUs are idle,
   * all of it if not — weighted by the shape's weight.
   */
  private static double measure(DemandMix mix, Node node, NodeLedger l) {
    Resources cap = node.allocatable();
    double total = 0;
    double partial = 0;
    int idle = 0;
    for (int g = 0; g < l.gpuCount(); g++) {
      total += l.free(g);
      if (l.free(g) >= 1.0 - EPS) {
        idle++;
      } else {
        partial += l.free(g);
      }
    }
    double frag = 0;
    for (DemandShape d : mix.shapes()) {
      boolean shortCpu = cap.cpuMillis() > 0
          && d.cpuMillis() > cap.cpuMillis() - l.allocated().cpuMillis();
      boolean shortMem = cap.memoryBytes() > 0
          && d.memoryBytes() > cap.memoryBytes() - l.allocated().memoryBytes();
      double unusable;
      if (!GpuModelNames.DEFAULTS.allows(d.models(), node.gpuModel()) || shortCpu || shortMem) {
        unusable = total;
      } else if (d.fractional()) {
        unusable = 0;
        for (int g = 0; g < l.gpuCount(); g++) {
          if (l.free(g) + EPS < d.share()) {
            unusable += l.free(g);
          }
        }
      } else {
        unusable = idle >= d.gpus() ? partial : total;
      }
      frag += d.weight() * unusable;
    }
    return frag;
  }
}
