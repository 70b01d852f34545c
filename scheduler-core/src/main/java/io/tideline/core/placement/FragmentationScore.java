package io.tideline.core.placement;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuModelNames;
import io.tideline.core.cluster.NodeLedger;
import io.tideline.core.cluster.Topology;
import io.tideline.core.model.Resources;

/**
 * Expected fragmentation of a node under a {@link DemandMix} (the measure of the ATC'23
 * "fragmentation gradient descent" paper, extended to models, CPU and memory; ADR 0037): for each
 * shape, the free GPU share on the node that shape could not use, weighted by the shape's share
 * of the demand. A shape cannot use any of the node's free GPU when the node's model is not
 * allowed, its free CPU or memory is short, or (whole GPUs) fewer idle GPUs than it needs are
 * left; otherwise it cannot use the partly used GPUs (whole GPUs) or the GPUs with less free
 * than its share (fractional). Placing where this grows least keeps free capacity usable by what
 * is expected, keeps flexible pods off the models constrained pods need and keeps CPU and memory
 * from running out ahead of GPUs.
 *
 * <p>Cost: {@link #view} reads a node's GPUs once (its free total, the free on partly used GPUs,
 * its idle count and, per fractional shape, the free on GPUs too small for it); every candidate
 * change is then scored from that view in time linear in the shapes ({@link #wholeDelta},
 * {@link #fractionalDelta}): a whole-GPU placement takes idle GPUs only, so the partly used ones
 * and the fractional terms stay as they are, and a fractional placement changes one GPU's free.
 */
final class FragmentationScore {

  private static final double EPS = ClusterSnapshot.SHARE_EPSILON;

  /** [shape][fleet model index]: may the shape run on that model. */
  private final boolean[][] allowed;
  private final double[] weight;
  private final int[] gpus;
  /** A fractional shape's share of one GPU, or 0 for a whole-GPU shape. */
  private final double[] share;
  private final long[] cpu;
  private final long[] memory;
  private final DemandMix mix;
  private final Topology topology;
  /**
   * Per node, the last view read and the ledger it was read from: unchanged ledgers are shared
   * between snapshots (copy-on-write), so a node that did not change is not read again. Entries
   * are immutable; a racing writer at worst makes another thread read the node once more.
   */
  private final Memo[] memo;

  private record Memo(NodeLedger ledger, View view) {}

  FragmentationScore(DemandMix mix, Topology topo, GpuModelNames names) {
    this.mix = mix;
    this.topology = topo;
    this.memo = new Memo[topo.size()];
    int shapes = mix.shapes().size();
    this.allowed = new boolean[shapes][topo.gpuModels().size()];
    this.weight = new double[shapes];
    this.gpus = new int[shapes];
    this.share = new double[shapes];
    this.cpu = new long[shapes];
    this.memory = new long[shapes];
    for (int s = 0; s < shapes; s++) {
      DemandShape d = mix.shapes().get(s);
      for (int m = 0; m < allowed[s].length; m++) {
        allowed[s][m] = names.allows(d.models(), topo.gpuModels().get(m));
      }
      weight[s] = d.weight();
      gpus[s] = d.gpus();
      share[s] = d.fractional() ? d.share() : 0;
      cpu[s] = d.cpuMillis();
      memory[s] = d.memoryBytes();
    }
  }

  /**
   * Node {@code n}'s free capacity as the measure reads it, and its expected fragmentation now
   * ({@link View#expected}).
   */
  View view(ClusterSnapshot snap, int n) {
    assert snap.topology() == topology : "a view of another topology";
    NodeLedger l = snap.ledger(n);
    Memo m = memo[n];
    if (m != null && m.ledger() == l) {
      return m.view();
    }
    View v = read(snap, n, l);
    memo[n] = new Memo(l, v);
    return v;
  }

  /** The demand mix it measures against. */
  DemandMix mix() {
    return mix;
  }

  /** The topology the views are of (the placer keeps this term while it stays the same). */
  Topology topology() {
    return topology;
  }

  private View read(ClusterSnapshot snap, int n, NodeLedger l) {
    Resources cap = topology.node(n).allocatable();
    long cpuFree = cap.cpuMillis() == 0 ? Long.MAX_VALUE
        : cap.cpuMillis() - l.allocated().cpuMillis();
    long memFree = cap.memoryBytes() == 0 ? Long.MAX_VALUE
        : cap.memoryBytes() - l.allocated().memoryBytes();
    double total = 0;
    double partial = 0;
    int idle = 0;
    for (int g = 0; g < l.gpuCount(); g++) {
      double f = l.free(g);
      if (f >= 1.0 - EPS) {
        idle++;
      } else {
        partial += f;
      }
      total += f;
    }
    double[] small = new double[share.length];
    for (int s = 0; s < share.length; s++) {
      if (share[s] > 0) {
        for (int g = 0; g < l.gpuCount(); g++) {
          double f = l.free(g);
          if (f + EPS < share[s]) {
            small[s] += f;
          }
        }
      }
    }
    int model = topology.modelIndex(n);
    return new View(model, cpuFree, memFree, total, partial, idle, small,
        measure(model, cpuFree, memFree, small, total, partial, idle, -1, -1));
  }

  /**
   * Growth of the node's expected fragmentation (GPUs) when it takes {@code wholeGpus} idle GPUs
   * and {@code charge} of its CPU and memory; negative when free GPU that was already unusable is
   * consumed.
   */
  double wholeDelta(View v, int wholeGpus, Resources charge) {
    return measure(v.model, less(v.cpuFree, charge.cpuMillis()),
        less(v.memFree, charge.memoryBytes()), v.small, v.total - wholeGpus, v.partial,
        v.idle - wholeGpus, -1, -1) - v.expected;
  }

  /**
   * Growth of the node's expected fragmentation when {@code take} of a GPU that has {@code free}
   * is placed there with {@code charge} of the node's CPU and memory.
   */
  double fractionalDelta(View v, double free, double take, Resources charge) {
    double left = free - take;
    boolean wasIdle = free >= 1.0 - EPS;
    boolean staysIdle = left >= 1.0 - EPS;
    int idle = v.idle - (wasIdle ? 1 : 0) + (staysIdle ? 1 : 0);
    double partial = v.partial - (wasIdle ? 0 : free) + (staysIdle ? 0 : left);
    return measure(v.model, less(v.cpuFree, charge.cpuMillis()),
        less(v.memFree, charge.memoryBytes()), v.small, v.total - take, partial, idle, free, left)
        - v.expected;
  }

  /** Free {@code free} less {@code charge}; an undeclared resource ({@code MAX_VALUE}) stays so. */
  private static long less(long free, long charge) {
    return free == Long.MAX_VALUE ? free : free - charge;
  }

  /**
   * The expected unusable free GPU of a node of fleet model {@code model} with the given free
   * CPU, memory, free on too-small GPUs per fractional shape ({@code small}), free total, free on
   * partly used GPUs and idle count; {@code oldFree}/{@code newFree} ≥ 0 name the one GPU whose
   * free changed (fractional) and correct {@code small}, -1 when none did.
   */
  private double measure(int model, long cpuFree, long memFree, double[] small, double total,
      double partial, int idle, double oldFree, double newFree) {
    double frag = 0;
    for (int s = 0; s < weight.length; s++) {
      double unusable;
      if (!allowed[s][model] || cpu[s] > cpuFree || memory[s] > memFree) {
        unusable = total;
      } else if (share[s] > 0) {
        unusable = small[s];
        if (oldFree >= 0) {
          unusable += (newFree + EPS < share[s] ? newFree : 0)
              - (oldFree + EPS < share[s] ? oldFree : 0);
        }
      } else {
        unusable = idle >= gpus[s] ? partial : total;
      }
      frag += weight[s] * unusable;
    }
    return frag;
  }

  /**
   * What {@link #view} read of one node.
   *
   * @param small per fractional shape, the free on GPUs with less free than its share (0 for a
   *     whole-GPU shape)
   * @param expected the node's expected fragmentation (GPUs) before any change
   */
  record View(int model, long cpuFree, long memFree, double total, double partial, int idle,
      double[] small, double expected) {}
}
