package io.tideline.preemption.view;

/**
 * One record the topology writes: destination topic and the already serialized value.
 *
 * @param topic destination topic
 * @param value serialized value
 */
record Out(String topic, byte[] value) {}
