/**
 * Preemption: victim selection by score, protection, cooldown, migration cost versus gain and
 * compensation, every decision with its rule trace.
 *
 * <p>Status: the decisions exist in {@code scheduler-core} ({@code io.tideline.core.preemption},
 * with {@code PlacementProbe} asking the real placer), but this service does not yet consume
 * {@code preemption.requests} or publish {@code preemption.decisions} (issue #7). Today it only
 * starts, connects to Kafka and the registry, and reports health and metrics.
 */
package io.tideline.preemption;
