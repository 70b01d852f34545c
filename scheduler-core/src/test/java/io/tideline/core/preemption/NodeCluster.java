package io.tideline.core.preemption;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * An honest, simple placement model for tests and benchmarks: nodes with GPU capacity and the
 * GPUs each running job holds on each node. A preemptor needing {@code g} GPUs over {@code n}
 * nodes fits when at least {@code n} nodes each have {@code ceil(g / n)} GPUs free (free now plus
 * freed by the evicted jobs); with {@code n = 0} it takes as few whole nodes as its size needs.
 * Monotone, as {@link FeasibilityProbe} requires, and incremental ({@link IncrementalProbe}: one
 * session keeps the free GPUs per node and the number of nodes that fit). Also counts probe calls.
 */
public final class NodeCluster implements IncrementalProbe {

  private final double gpusPerNode;
  private final double[] free;
  private final Map<String, Holding> held = new HashMap<>();
  private int probes;
  private long idsVisited;

  public NodeCluster(int nodes, double gpusPerNode) {
    this.gpusPerNode = gpusPerNode;
    this.free = new double[nodes];
    Arrays.fill(free, gpusPerNode);
  }

  /** Puts {@code gpus} of {@code jobId} on {@code node}. */
  public NodeCluster place(String jobId, int node, double gpus) {
    if (free[node] < gpus) {
      throw new IllegalStateException("node " + node + " has only " + free[node] + " GPUs free");
    }
    free[node] -= gpus;
    held.computeIfAbsent(jobId, k -> new Holding()).add(node, gpus);
    return this;
  }

  public int nodes() {
    return free.length;
  }

  public double free(int node) {
    return free[node];
  }

  /** Probe calls so far. */
  public int probes() {
    return probes;
  }

  /** Evicted ids the probes have iterated so far (the probe's total work). */
  public long idsVisited() {
    return idsVisited;
  }

  @Override
  public boolean feasibleWithout(PreemptionRequest preemptor, Set<String> evictedJobIds) {
    probes++;
    idsVisited += evictedJobIds.size();
    double[] after = free.clone();
    for (String id : evictedJobIds) {
      Holding h = held.get(id);
      if (h != null) {
        for (int i = 0; i < h.size; i++) {
          after[h.nodes[i]] += h.gpus[i];
        }
      }
    }
    int needNodes = preemptor.nodes() > 0
        ? preemptor.nodes() : (int) Math.ceil(preemptor.gpus() / gpusPerNode);
    double perNode = Math.ceil((double) preemptor.gpus() / needNodes);
    int fitting = 0;
    for (double f : after) {
      if (f >= perNode && ++fitting >= needNodes) {
        return true;
      }
    }
    return false;
  }

  @Override
  public Session open(PreemptionRequest preemptor) {
    probes++;
    int needNodes = preemptor.nodes() > 0
        ? preemptor.nodes() : (int) Math.ceil(preemptor.gpus() / gpusPerNode);
    double perNode = Math.ceil((double) preemptor.gpus() / needNodes);
    double[] after = free.clone();
    int fitting0 = 0;
    for (double f : after) {
      if (f >= perNode) {
        fitting0++;
      }
    }
    int initiallyFitting = fitting0;
    return new Session() {
      private int fitting = initiallyFitting;

      @Override
      public void evict(String jobId) {
        move(jobId, 1);
      }

      @Override
      public void restore(String jobId) {
        move(jobId, -1);
      }

      private void move(String jobId, int sign) {
        idsVisited++;
        Holding h = held.get(jobId);
        if (h == null) {
          return;
        }
        for (int i = 0; i < h.size; i++) {
          int n = h.nodes[i];
          boolean before = after[n] >= perNode;
          after[n] += sign * h.gpus[i];
          boolean now = after[n] >= perNode;
          if (before != now) {
            fitting += now ? 1 : -1;
          }
        }
      }

      @Override
      public boolean feasible() {
        return fitting >= needNodes;
      }
    };
  }

  /** The GPUs one job holds, node by node. */
  private static final class Holding {
    int[] nodes = new int[1];
    double[] gpus = new double[1];
    int size;

    void add(int node, double g) {
      if (size == nodes.length) {
        nodes = Arrays.copyOf(nodes, size * 2);
        gpus = Arrays.copyOf(gpus, size * 2);
      }
      nodes[size] = node;
      gpus[size] = g;
      size++;
    }
  }
}
