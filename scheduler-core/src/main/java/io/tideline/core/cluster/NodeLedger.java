package io.tideline.core.cluster;

import io.tideline.core.model.Resources;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The allocation state of one node: per GPU, which jobs hold which share, and per job the CPU,
 * memory and extended resources its workers hold here (ADR 0030). Immutable; a change produces a
 * new ledger (copy-on-write), so snapshots can share unchanged nodes.
 */
public final class NodeLedger {

  private static final TreeMap<String, Resources> NO_CHARGES = new TreeMap<>();

  private final double[] used;
  private final List<TreeMap<String, Double>> holders;
  /** Job id → non-GPU resources it holds on this node; never modified once shared. */
  private final TreeMap<String, Resources> charges;
  private final Resources allocated;
  private final int idleGpus;
  private final int partialGpus;

  private NodeLedger(double[] used, List<TreeMap<String, Double>> holders,
      TreeMap<String, Resources> charges, Resources allocated) {
    this.used = used;
    this.holders = holders;
    this.charges = charges;
    this.allocated = allocated;
    int idle = 0;
    int partial = 0;
    for (double u : used) {
      if (u <= ClusterSnapshot.SHARE_EPSILON) {
        idle++;
      } else if (u < 1.0 - ClusterSnapshot.SHARE_EPSILON) {
        partial++;
      }
    }
    this.idleGpus = idle;
    this.partialGpus = partial;
  }

  /** An empty ledger for a node with {@code gpuCount} GPUs. */
  static NodeLedger empty(int gpuCount) {
    List<TreeMap<String, Double>> h = new ArrayList<>(gpuCount);
    for (int g = 0; g < gpuCount; g++) {
      h.add(new TreeMap<>());
    }
    return new NodeLedger(new double[gpuCount], h, NO_CHARGES, Resources.NONE);
  }

  /** CPU, memory and extended resources held on this node, summed over its jobs. */
  public Resources allocated() {
    return allocated;
  }

  /** Non-GPU resources each job holds on this node, by job id (jobs asking none are absent). */
  public SortedMap<String, Resources> charges() {
    return Collections.unmodifiableSortedMap(charges);
  }

  /** GPUs on the node. */
  public int gpuCount() {
    return used.length;
  }

  /** Share of GPU {@code gpu} allocated, in [0, 1]. */
  public double used(int gpu) {
    return used[gpu];
  }

  /** Share of GPU {@code gpu} still free. */
  public double free(int gpu) {
    return Math.max(0.0, 1.0 - used[gpu]);
  }

  /** Whether GPU {@code gpu} holds nothing. */
  public boolean isIdle(int gpu) {
    return used[gpu] <= ClusterSnapshot.SHARE_EPSILON;
  }

  /** Jobs on GPU {@code gpu} and their shares, by job id. */
  public SortedMap<String, Double> holders(int gpu) {
    return Collections.unmodifiableSortedMap(holders.get(gpu));
  }

  /** GPUs holding nothing. */
  public int idleGpus() {
    return idleGpus;
  }

  /** GPUs shared by fractional instances and not full. */
  public int partialGpus() {
    return partialGpus;
  }

  /** Sum of allocated shares over the node. */
  public double usedShare() {
    double s = 0;
    for (double u : used) {
      s += u;
    }
    return s;
  }

  /** Ids of the jobs holding any GPU of this node, sorted. */
  public SortedSet<String> jobs() {
    TreeSet<String> jobs = new TreeSet<>(charges.keySet());
    holders.forEach(h -> jobs.addAll(h.keySet()));
    return jobs;
  }

  NodeLedger plus(String jobId, int gpu, double share, String nodeId) {
    double after = used[gpu] + share;
    if (after > 1.0 + ClusterSnapshot.SHARE_EPSILON) {
      throw new IllegalArgumentException("GPU " + nodeId + "/" + gpu + " would hold " + after
          + " > 1.0 with " + jobId);
    }
    if (holders.get(gpu).containsKey(jobId)) {
      throw new IllegalArgumentException(jobId + " already holds GPU " + nodeId + "/" + gpu);
    }
    double[] u = used.clone();
    u[gpu] = Math.min(1.0, after);
    List<TreeMap<String, Double>> h = new ArrayList<>(holders);
    TreeMap<String, Double> m = new TreeMap<>(h.get(gpu));
    m.put(jobId, share);
    h.set(gpu, m);
    return new NodeLedger(u, h, charges, allocated);
  }

  /**
   * This ledger with {@code jobId} also holding {@code charge} of {@code node}'s non-GPU
   * resources; fails if any resource the node declares would be overcommitted.
   */
  NodeLedger charge(String jobId, Resources charge, Node node) {
    if (charge.isNone()) {
      return this;
    }
    ResourceFit.Shortfall s = ResourceFit.shortfall(node.allocatable(), allocated, charge);
    if (s != null) {
      throw new IllegalArgumentException("node " + node.id() + " would be overcommitted by "
          + jobId + ": " + s.describe());
    }
    if (charges.containsKey(jobId)) {
      throw new IllegalArgumentException(jobId + " already holds resources on " + node.id());
    }
    TreeMap<String, Resources> c = new TreeMap<>(charges);
    c.put(jobId, charge);
    return new NodeLedger(used, holders, c, allocated.plus(charge));
  }

  NodeLedger minus(String jobId) {
    TreeMap<String, Resources> c = charges;
    Resources a = allocated;
    if (charges.containsKey(jobId)) {
      c = new TreeMap<>(charges);
      c.remove(jobId);
      // recompute from the remaining holders, as for the GPU shares
      a = Resources.NONE;
      for (Resources r : c.values()) {
        a = a.plus(r);
      }
    }
    double[] u = used.clone();
    List<TreeMap<String, Double>> h = new ArrayList<>(holders);
    for (int g = 0; g < u.length; g++) {
      Double share = h.get(g).get(jobId);
      if (share != null) {
        TreeMap<String, Double> m = new TreeMap<>(h.get(g));
        m.remove(jobId);
        h.set(g, m);
        // recompute from the remaining holders so rounding never accumulates
        double sum = 0;
        for (double s : m.values()) {
          sum += s;
        }
        u[g] = sum;
      }
    }
    return new NodeLedger(u, h, c, a);
  }
}
