package io.tideline.platform.ledger;

/**
 * One record a single-writer topology writes: the destination topic and the already serialized
 * value ({@code null} for a tombstone). Values are serialized once, by the processor, so the same
 * bytes go to the output topic and (where the service keeps them) into its store.
 *
 * @param topic destination topic
 * @param value serialized value, or {@code null} for a tombstone
 */
public record Out(String topic, byte[] value) {}
