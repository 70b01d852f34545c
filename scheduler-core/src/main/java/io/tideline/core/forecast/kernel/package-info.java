/**
 * The forecaster's kernel (issue #14, ADR 0008, ADR 0017): GPU observations, jobs, the
 * inventory, holidays and clock ticks in; reservations, forecasts, the daily slot map, refusals
 * and tallies out, decided only on ticks. The forecaster service and the simulator's twin run it
 * through the platform's {@code io.tideline.platform.kernel.forecast.ForecastHost}.
 */
package io.tideline.core.forecast.kernel;
