/**
 * The preemption kernel (ADR 0008): preemption-svc's single writer as a pure state machine over
 * the shared cluster fold — its view of the cluster is placement's ledger as folded from
 * {@code placement.ledger}. It answers placement's requests and quota's reclaims with the core
 * planner's rules ({@link io.tideline.core.preemption.PreemptionPlanner}).
 */
package io.tideline.core.preemption.kernel;
