package io.tideline.core.quota;

import java.time.Duration;
import java.time.Instant;

/**
 * Exponentially decayed GPU-seconds as of an instant (requirement Q4): yesterday's hogging counts,
 * last month's barely does. Decay is computed from explicit instants, never the clock; a value asked
 * for at an instant before {@code asOf} is not un-decayed (returned as is), so late events cannot
 * inflate history.
 *
 * @param gpuSeconds decayed GPU-seconds at {@code asOf}
 * @param asOf the instant the value is valid at
 */
public record DecayedUsage(double gpuSeconds, Instant asOf) {

  public static DecayedUsage zero(Instant at) {
    return new DecayedUsage(0, at);
  }

  /** The value decayed to {@code t}: × 2^(−(t − asOf) / halfLife). */
  public DecayedUsage at(Instant t, Duration halfLife) {
    if (!t.isAfter(asOf)) {
      return this;
    }
    return new DecayedUsage(gpuSeconds * factor(Duration.between(asOf, t), halfLife), t);
  }

  /**
   * This usage plus a run of {@code gpus} over [{@code from}, {@code to}), decayed continuously:
   * the run contributes gpus × h/ln2 × (1 − 2^(−(to − from)/h)) at {@code to}.
   */
  public DecayedUsage plusRun(double gpus, Instant from, Instant to, Duration halfLife) {
    Instant end = to.isAfter(asOf) ? to : asOf;
    DecayedUsage base = at(end, halfLife);
    double run = runContribution(gpus, from, to, halfLife)
        * factor(Duration.between(to, end), halfLife);
    return new DecayedUsage(base.gpuSeconds + run, end);
  }

  /** A run's decayed GPU-seconds at its own end instant. */
  static double runContribution(double gpus, Instant from, Instant to, Duration halfLife) {
    if (!to.isAfter(from) || gpus <= 0) {
      return 0;
    }
    double h = seconds(halfLife);
    double len = seconds(Duration.between(from, to));
    return gpus * h / Math.log(2) * (1 - Math.pow(2, -len / h));
  }

  static double factor(Duration elapsed, Duration halfLife) {
    return elapsed.isNegative() ? 1 : Math.pow(2, -seconds(elapsed) / seconds(halfLife));
  }

  private static double seconds(Duration d) {
    return d.getSeconds() + d.getNano() / 1e9;
  }
}
