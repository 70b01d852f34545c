package io.tideline.core.forecast;

/**
 * Converts an online service's request rate into GPUs (W2), so request-rate traces and telemetry
 * feed the same GPU-denominated slot statistics as GPU samples.
 */
public final class DemandScaler {

  private final DemandShapeConfig config;

  public DemandScaler(DemandShapeConfig config) {
    this.config = config;
  }

  /** GPU-equivalents needed for {@code requestsPerSecond} (fractional). */
  public double gpus(double requestsPerSecond) {
    if (!Double.isFinite(requestsPerSecond) || requestsPerSecond < 0) {
      throw new IllegalArgumentException("request rate must be finite and not negative");
    }
    return requestsPerSecond / config.requestsPerSecondPerGpu();
  }

  /** Whole GPUs needed to serve {@code requestsPerSecond}: the GPU-equivalents rounded up. */
  public int wholeGpus(double requestsPerSecond) {
    return (int) Math.ceil(gpus(requestsPerSecond));
  }
}
