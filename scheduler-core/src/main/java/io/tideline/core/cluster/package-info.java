/**
 * The cluster as decisions see it (T1, F2, F3): nodes and their switch paths
 * ({@link io.tideline.core.cluster.Topology}, parsed from the Clos table by
 * {@link io.tideline.core.cluster.TopologyCsv}) and the versioned, copy-on-write allocation ledger
 * ({@link io.tideline.core.cluster.ClusterSnapshot}): per-GPU shares by job, reservations for
 * online services, cordons.
 */
package io.tideline.core.cluster;
