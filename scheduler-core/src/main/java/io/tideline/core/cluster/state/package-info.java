/**
 * The one model of a cluster the schedulers share (ADR 0008): {@link
 * io.tideline.core.cluster.state.ClusterState} and the fold of {@link
 * io.tideline.core.cluster.state.ClusterFact}s into it — inventory, submissions, verdicts,
 * lifecycle and the ledger's own {@link io.tideline.core.cluster.state.LedgerChange}s.
 */
package io.tideline.core.cluster.state;
