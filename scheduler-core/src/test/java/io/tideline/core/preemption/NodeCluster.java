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
 * Monotone, as {@link FeasibilityProbe} requires. Also counts probe calls.
 */
final class NodeCluster implements FeasibilityProbe {

  private final double gpusPerNode;
  private final double[] free;
  private final Map<String, Map<Integer, Double>> held = new HashMap<>();
  private int probes;

  NodeCluster(int nodes, double gpusPerNode) {
    this.gpusPerNode = gpusPerNode;
    this.free = new double[nodes];
    Arrays.fill(free, gpusPerNode);
  }

  /** Puts {@code gpus} of {@code jobId} on {@code node}. */
  NodeCluster place(String jobId, int node, double gpus) {
    if (free[node] < gpus) {
      throw new IllegalStateException("node " + node + " has only " + free[node] + " GPUs free");
    }
    free[node] -= gpus;
    held.computeIfAbsent(jobId, k -> new HashMap<>()).merge(node, gpus, Double::sum);
    return this;
  }

  int nodes() {
    return free.length;
  }

  double free(int node) {
    return free[node];
  }

  int probes() {
    return probes;
  }

  @Override
  public boolean feasibleWithout(PreemptionRequest preemptor, Set<String> evictedJobIds) {
    probes++;
    double[] after = free.clone();
    for (String id : evictedJobIds) {
      Map<Integer, Double> nodes = held.get(id);
      if (nodes != null) {
        nodes.forEach((node, gpus) -> after[node] += gpus);
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
}
