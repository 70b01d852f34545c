/**
 * Forecaster: Kafka Streams keeping per-service, per-time-slot usage percentiles over a rolling two-week, holiday-aware window; 15-minute-ahead reservations; peak/trough slot classes.
 *
 * <p>Publishes: forecast.slots, capacity.reservations. A thin adapter: decisions come from {@code scheduler-core}.
 */
package io.tideline.forecaster;
