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
 */
final class FragmentationScore {

  private final DemandMix mix;
  /** [shape][fleet model index]: may the shape run on that model. */
  private final boolean[][] allowed;

  FragmentationScore(DemandMix mix, Topology topo, GpuModelNames names) {
    this.mix = mix;
    this.allowed = new boolean[mix.shapes().size()][topo.gpuModels().size()];
    for (int s = 0; s < allowed.length; s++) {
      for (int m = 0; m < allowed[s].length; m++) {
        allowed[s][m] = names.allows(mix.shapes().get(s).models(), topo.gpuModels().get(m));
      }
    }
  }

  /**
   * Growth of node {@code n}'s expected fragmentation (GPUs) when it takes {@code share} of GPU
   * {@code gpu} (fractional), or {@code wholeGpus} idle GPUs, and {@code charge} of its CPU and
   * memory; negative when free GPU that was already unusable is consumed.
   */
  double delta(ClusterSnapshot snap, int n, int gpu, double share, int wholeGpus,
      Resources charge) {
    return after(snap, n, gpu, share, wholeGpus, charge) - before(snap, n);
  }

  /** Node {@code n}'s expected fragmentation now. */
  double before(ClusterSnapshot snap, int n) {
    return after(snap, n, -1, 0, 0, Resources.NONE);
  }

  /** Node {@code n}'s expected fragmentation after the change {@link #delta} describes. */
  double after(ClusterSnapshot snap, int n, int gpu, double share, int wholeGpus,
      Resources charge) {
    NodeLedger l = snap.ledger(n);
    Resources cap = snap.topology().node(n).allocatable();
    long cpuFree = cap.cpuMillis() == 0 ? Long.MAX_VALUE
        : cap.cpuMillis() - l.allocated().cpuMillis();
    long memFree = cap.memoryBytes() == 0 ? Long.MAX_VALUE
        : cap.memoryBytes() - l.allocated().memoryBytes();
    return expected(l, gpu, share, wholeGpus,
        cpuFree == Long.MAX_VALUE ? cpuFree : cpuFree - charge.cpuMillis(),
        memFree == Long.MAX_VALUE ? memFree : memFree - charge.memoryBytes(),
        snap.topology().modelIndex(n));
  }

  /** Expected unusable free GPU of the node with the given change applied. */
  private double expected(NodeLedger l, int gpu, double share, int wholeGpus, long cpuFree,
      long memFree, int model) {
    // the node's free GPU after the change: total, on partly used GPUs, idle count
    double total = 0;
    double partial = 0;
    int idle = -wholeGpus;
    for (int g = 0; g < l.gpuCount(); g++) {
      double f = g == gpu ? l.free(g) - share : l.free(g);
      if (f >= 1.0 - ClusterSnapshot.SHARE_EPSILON) {
        idle++;
      } else {
        partial += f;
      }
      total += f;
    }
    total -= wholeGpus;
    double frag = 0;
    for (int s = 0; s < allowed.length; s++) {
      DemandShape d = mix.shapes().get(s);
      double unusable;
      if (!allowed[s][model] || d.cpuMillis() > cpuFree || d.memoryBytes() > memFree) {
        unusable = total;
      } else if (d.fractional()) {
        unusable = 0;
        for (int g = 0; g < l.gpuCount(); g++) {
          double f = g == gpu ? l.free(g) - share : l.free(g);
          if (f + ClusterSnapshot.SHARE_EPSILON < d.share()) {
            unusable += f;
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
