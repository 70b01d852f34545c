package io.tideline.simulator.placementstudy;

import io.tideline.core.cluster.Allocation;
import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.GpuModelNames;
import io.tideline.core.cluster.NodeLedger;
import io.tideline.core.cluster.ResourceFit;
import io.tideline.core.cluster.Topology;
import io.tideline.core.model.JobRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * The study's baseline, not a Tideline policy: classic best fit as the published evaluation
 * defines it. Among the nodes that can take the pod (an allowed GPU model, room for its CPU,
 * memory and extended resources, enough idle GPUs or one GPU with the share free), the node
 * with the least free GPU (sum of free shares) after placement wins, node index on ties. On that
 * node a whole-GPU pod takes the lowest-index idle GPUs, a fractional pod the GPU with the least
 * free share that holds it (GPU index on ties). Model names match by the core's rule.
 */
public final class BestFitPolicy implements StudyPolicy {

  private final GpuModelNames models;

  public BestFitPolicy(GpuModelNames models) {
    this.models = models;
  }

  @Override
  public String name() {
    return "best fit";
  }

  @Override
  public ClusterSnapshot place(ClusterSnapshot s, JobRequest pod) {
    Topology topo = s.topology();
    int best = -1;
    int bestGpu = -1;
    double bestLeft = Double.MAX_VALUE;
    for (int n = 0; n < topo.size(); n++) {
      NodeLedger l = s.ledger(n);
      if (s.isCordoned(n) || !models.allows(pod.allowedGpuModels(), topo.node(n).gpuModel())
          || ResourceFit.workersThatFit(topo.node(n).allocatable(), l.allocated(),
          pod.resources()) < 1) {
        continue;
      }
      int gpu = -1;
      if (pod.fractional()) {
        gpu = tightestGpu(l, pod.gpuShare());
        if (gpu < 0) {
          continue;
        }
      } else if (l.idleGpus() < pod.gpuCount()) {
        continue;
      }
      double left = l.gpuCount() - l.usedShare() - pod.gpuDemand() * (pod.gpuless() ? 0 : 1);
      if (left < bestLeft - ClusterSnapshot.SHARE_EPSILON) {
        best = n;
        bestGpu = gpu;
        bestLeft = left;
      }
    }
    if (best < 0) {
      return null;
    }
    String id = topo.node(best).id();
    List<GpuAssignment> gpus = new ArrayList<>();
    if (pod.fractional()) {
      gpus.add(new GpuAssignment(id, bestGpu, pod.gpuShare()));
    } else {
      NodeLedger l = s.ledger(best);
      for (int g = 0; g < l.gpuCount() && gpus.size() < pod.gpuCount(); g++) {
        if (l.isIdle(g)) {
          gpus.add(new GpuAssignment(id, g, 1.0));
        }
      }
    }
    TreeMap<String, Integer> workers = new TreeMap<>();
    if (!pod.resources().isNone()) {
      workers.put(id, 1);
    }
    return s.withAllocation(new Allocation(pod, gpus, workers));
  }

  private static int tightestGpu(NodeLedger l, double share) {
    int best = -1;
    for (int g = 0; g < l.gpuCount(); g++) {
      double free = l.free(g);
      if (free + ClusterSnapshot.SHARE_EPSILON >= share
          && (best < 0 || free < l.free(best) - ClusterSnapshot.SHARE_EPSILON)) {
        best = g;
      }
    }
    return best;
  }
}
