/**
 * Preemption: victim selection by score, protection, cooldown, migration cost versus gain and compensation, every decision with its rule trace.
 *
 * <p>Publishes: preemption.decisions. A thin adapter: decisions come from {@code scheduler-core}.
 */
package io.tideline.preemption;
