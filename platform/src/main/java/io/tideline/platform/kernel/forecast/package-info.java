/**
 * The forecast kernel's host (issue #14): the mapping between the forecaster's Avro records and
 * the core's {@code io.tideline.core.forecast.kernel} — input records to kernel inputs, effects to
 * records, state entities to store records — that forecaster-svc's Streams processor and the
 * simulator's in-process twin both run. Pure: no Kafka client, no store, no clock.
 */
package io.tideline.platform.kernel.forecast;
