package io.tideline.core.fragmentation;

/**
 * One node's fragmentation (T2), see {@link FragmentationIndex}.
 *
 * @param nodeId the node
 * @param idleGpus whole idle GPUs on it
 * @param strandedGpus demand-weighted expected number of its idle GPUs no demanded shape can use
 * @param index {@code strandedGpus / idleGpus} in [0, 1]; 0 for a node with no idle GPU
 * @param usedShare GPU share allocated on the node (what evacuating it would move)
 */
public record NodeFragmentation(String nodeId, int idleGpus, double strandedGpus, double index,
    double usedShare) {}
