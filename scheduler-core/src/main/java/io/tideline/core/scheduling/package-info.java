/**
 * The placement kernel — the one scheduler of a cluster (ADR 0008). {@link
 * io.tideline.core.scheduling.PlacementKernel} is placement-svc's single writer as a pure state
 * machine, and the in-process twin runs it unchanged. Each decision lives in one class with its
 * rules documented in the order applied: the cycle ({@code PlacementKernel}), the queue and the
 * pass ({@code QueuePass}), reservations ({@code ReservationRules}), applying preemption's
 * answers ({@code AnswerRules}), defragmentation gates ({@code DefragRules}), start estimates
 * ({@code StartEstimator}), queue positions ({@code Positions}) and fragmentation events
 * ({@code FragmentationEvents}). The ledger itself is the shared fold
 * {@link io.tideline.core.cluster.state.ClusterState}: every change goes through it and is
 * published for followers.
 */
package io.tideline.core.scheduling;
