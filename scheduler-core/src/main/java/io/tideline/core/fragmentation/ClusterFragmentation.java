package io.tideline.core.fragmentation;

import java.util.List;

/**
 * The cluster's fragmentation figure (T2), see {@link FragmentationIndex}.
 *
 * @param index stranded idle GPUs ÷ idle GPUs over the whole cluster, in [0, 1]
 * @param strandedGpus demand-weighted expected stranded idle GPUs
 * @param idleGpus whole idle GPUs
 * @param nodes every node, most fragmented first (index desc, stranded desc, node id)
 */
public record ClusterFragmentation(double index, double strandedGpus, int idleGpus,
    List<NodeFragmentation> nodes) {

  public ClusterFragmentation {
    nodes = List.copyOf(nodes);
  }
}
