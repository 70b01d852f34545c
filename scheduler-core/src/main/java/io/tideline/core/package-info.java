/**
 * Tideline's decision core: pure, deterministic functions of {@code now} and a snapshot.
 *
 * <p>Nothing here performs I/O, imports a framework (Kafka, Quarkus, Jakarta, SmallRye,
 * Micrometer) or reads the wall clock; {@code ArchitectureRulesTest} enforces it. Services are thin
 * adapters around these functions and the simulator runs them in-process, so simulated policy
 * quality is the real code's quality and an audit replay reproduces every decision.
 */
package io.tideline.core;
