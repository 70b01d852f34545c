/**
 * Rational preemption (requirements W1, W4, P1–P7): who may preempt, who may be a victim, what an
 * eviction costs in GPU-hours, what it gains, and which cheapest set of victims frees a feasible
 * placement.
 *
 * <p>{@link io.tideline.core.preemption.PreemptionPlanner} is the entry point: a pure function of a
 * {@link io.tideline.core.preemption.PreemptionRequest}, a snapshot of
 * {@link io.tideline.core.preemption.RunningJob}s, a caller-supplied
 * {@link io.tideline.core.preemption.FeasibilityProbe} (placement's answer to "would the preemptor
 * fit if these jobs left?") and {@code now}. It returns a
 * {@link io.tideline.core.preemption.PreemptionDecision} whose rule trace says, for every
 * candidate, why it was taken or refused. Every number is a default of
 * {@link io.tideline.core.preemption.PreemptionConfig}.
 *
 * <p>Probes: {@link io.tideline.core.preemption.PlacementProbe} asks placement's {@code Placer}
 * (the preemptor's shape and topology); {@link io.tideline.core.preemption.GpuCountProbe} counts
 * GPUs (a reservation reclaim, where placement reserves by count). A probe that is also an
 * {@link io.tideline.core.preemption.IncrementalProbe} lets the victim search walk the
 * candidates once instead of re-probing prefixes (same victims either way).
 * {@link io.tideline.core.preemption.PreemptionPlanner#reclaimIdle} decides quota's idle
 * reclamations (Q7), where there is no preemptor.
 */
package io.tideline.core.preemption;
