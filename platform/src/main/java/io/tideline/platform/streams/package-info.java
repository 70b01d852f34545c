/**
 * What every Tideline Kafka Streams service shares and configures once, in the platform's
 * {@code META-INF/microprofile-config.properties}: the deserialization, processing and
 * production exception handlers that dead-letter the record at fault with the reason and let
 * the engine go on (issue #16: no poison pill).
 */
package io.tideline.platform.streams;
