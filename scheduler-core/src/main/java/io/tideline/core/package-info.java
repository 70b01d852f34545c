/**
 * Tideline's decision core: pure, deterministic functions of {@code now} and a snapshot.
 *
 * <p>Nothing here performs I/O, imports a framework (Kafka, Quarkus, Jakarta, SmallRye,
 * Micrometer) or reads the wall clock; {@code ArchitectureRulesTest} enforces it. The scheduling
 * cycle itself lives here as kernels ({@code step(now, state, input) → (state, effects)}, ADR
 * 0008: {@code scheduling}, {@code preemption.kernel}, {@code quota.kernel},
 * {@code forecast.kernel}); services are thin adapters around them and the simulator's twin runs
 * the same kernels in-process, so simulated policy quality is the real code's quality and an audit
 * replay reproduces every decision.
 */
package io.tideline.core;
