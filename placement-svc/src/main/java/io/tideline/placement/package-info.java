/**
 * Placement: the queue and the allocation ledger (single writer per cluster): lanes, gang and topology-aware placement, reservations honoured, fragmentation index, passive and active defragmentation.
 *
 * <p>Publishes: placement.decisions, placement.queue, preemption.requests, evictions. A thin adapter: decisions come from {@code scheduler-core}.
 */
package io.tideline.placement;
