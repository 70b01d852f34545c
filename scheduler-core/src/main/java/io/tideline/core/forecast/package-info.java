/**
 * Forecast and reservation (requirements F1–F3, input to Q5): per-service slot statistics over a
 * rolling window with a holiday flag, quantile forecasts for the next slot, and the reservation
 * planner that reserves ahead of a rise, over-issues on under-forecast and releases early on
 * over-forecast. Pure decision code: the forecaster service holds {@link
 * io.tideline.core.forecast.SlotHistory} bytes in a state store and calls these functions with
 * event time.
 */
package io.tideline.core.forecast;
