package io.tideline.placement.ledger;

/**
 * One record the topology writes: the topic, the key bytes and the already serialized value
 * ({@code null} for a tombstone). Values are serialized once, by the processor, so the same bytes
 * go to the output topic and (for bindings) into the ledger store.
 *
 * @param topic destination topic
 * @param value serialized value, or {@code null} for a tombstone
 */
public record Out(String topic, byte[] value) {}
