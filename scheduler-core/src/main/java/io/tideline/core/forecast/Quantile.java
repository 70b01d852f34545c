package io.tideline.core.forecast;

/**
 * The quantiles of same-slot usage the forecast publishes (F1). Reservations use one of them,
 * chosen in {@link ReservationConfig#quantile()}: a higher one under-forecasts less often and
 * leaves more reserved GPUs to release early (F3).
 */
public enum Quantile {
  P50(0.50),
  P90(0.90),
  P95(0.95),
  P99(0.99);

  private final double level;

  Quantile(double level) {
    this.level = level;
  }

  /** The quantile as a fraction in (0, 1). */
  public double level() {
    return level;
  }
}
