/**
 * Where a job goes (T1, T2, T5, W3, F2, Q6): {@link io.tideline.core.placement.Placer} turns
 * {@code now}, a {@link io.tideline.core.cluster.ClusterSnapshot} and a
 * {@link io.tideline.core.model.JobRequest} into a
 * {@link io.tideline.core.placement.PlacementDecision} with its rule trace;
 * {@link io.tideline.core.placement.QueueOrder} decides which waiting job is offered first.
 */
package io.tideline.core.placement;
