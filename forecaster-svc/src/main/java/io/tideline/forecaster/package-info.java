/**
 * Forecaster: the Kafka Streams adapter of the core's forecast kernel
 * ({@code io.tideline.core.forecast.kernel}), run through the platform's {@code ForecastHost}:
 * per-service, per-time-slot usage over a rolling two-week, holiday-aware window, calibrated
 * forecasts, reservations 15 minutes ahead, early release, over-issue, the daily slot map.
 *
 * <p>Publishes: forecast.slots, capacity.reservations, forecast.slotmap. A thin adapter: wiring,
 * store I/O and meters; every decision comes from {@code scheduler-core}.
 */
package io.tideline.forecaster;
