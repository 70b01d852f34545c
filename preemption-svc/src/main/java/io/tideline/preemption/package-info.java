/**
 * Preemption (issue #7): victim selection by score, protection, cooldown, migration cost versus
 * gain and compensation, every decision with its rule trace. A thin adapter: every decision comes
 * from {@code scheduler-core} ({@code io.tideline.core.preemption.PreemptionPlanner}, with
 * placement's own {@code Placer} as the feasibility probe), with {@code now} taken from event time.
 *
 * <h2>Single writer per cluster</h2>
 * {@link io.tideline.preemption.view.PreemptionTopology} is a Kafka Streams topology run with
 * {@code exactly_once_v2}. Inputs ({@code cluster.inventory}, {@code placement.decisions},
 * {@code jobs.submitted}, {@code quota.verdicts}, {@code jobs.lifecycle},
 * {@code capacity.reservations}, {@code cluster.clock}, {@code preemption.requests},
 * {@code quota.reclaims}) are decoded (bad records go to {@code <topic>.dlq} with the reason),
 * re-keyed to their cluster and folded by one task per cluster into a view of the cluster kept
 * in a changelogged store: the topology, who holds which GPUs, each job's class, checkpoint
 * profile and lifecycle facts, and quota's word on preemptibility and the right to preempt (W4).
 *
 * <h2>Decisions</h2>
 * {@code preemption.decisions} (key cluster) answers placement's requests (trigger UNPLACEABLE,
 * with the request's ledger version so placement re-checks before evicting), reclaims the GPUs of
 * a capacity reservation when its slot starts (RESERVATION_START, on placement's request naming
 * the jobs on the reserved GPUs; victims are chosen among those only, ADR 0006) and quota's idle
 * reclamations (IDLE_RECLAIM). Each carries the victims with cost and compensation (P6), cost
 * against gain (P4, P5), the policy version and the full rule trace (P7, O2).
 *
 * <h2>REST</h2>
 * {@code GET /decisions?limit=} lists recent decisions; {@code GET /decisions/{id}} explains one
 * ({@link io.tideline.preemption.api.DecisionResource}); {@code GET /view} shows what the view
 * holds. Configuration: {@link io.tideline.preemption.PreemptionSettings}.
 */
package io.tideline.preemption;
