/**
 * The eviction-decision join: notices follow applied evictions, explained by the decisions that
 * ordered them ({@link io.tideline.notifier.join.EvictionJoin}, its rule documented there; ADR
 * 0019). Pure: no Kafka, no wall clock.
 */
package io.tideline.notifier.join;
