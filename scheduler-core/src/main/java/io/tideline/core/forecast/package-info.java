/**
 * Forecast and reservation (requirements F1–F3, input to Q5; issue #21): per-service slot
 * statistics over a rolling window with a holiday flag ({@link
 * io.tideline.core.forecast.SlotHistory}, {@link io.tideline.core.forecast.SlotForecaster}), the
 * forecast a reservation is sized from ({@link io.tideline.core.forecast.DemandForecaster}: blend
 * with the last level, quantiles calibrated on recent errors, cold start, shorter memory after a
 * level shift), and the reservation planner that reserves ahead of a rise, over-issues on
 * under-forecast and releases early on over-forecast. Pure decision code, called with event time;
 * the cycle around it is the forecast kernel ({@code io.tideline.core.forecast.kernel}).
 */
package io.tideline.core.forecast;
