package io.tideline.core.quota;

import java.time.Duration;
import java.time.Instant;

/**
 * Exponentially decayed usage as of an instant (requirement Q4): yesterday's hogging counts, last
 * month's barely does. Decay is computed from explicit instants, never the clock; a value asked
 * for at an instant before {@code asOf} is not un-decayed (returned as is), so late events cannot
 * inflate history.
 *
 * <p><b>Exact arithmetic.</b> The value is an integer number of <em>GPU-milliseconds</em>
 * (1 GPU for 1 ms) and every operation is a deterministic function of integers: the decay factor
 * and a run's contribution are evaluated with {@link StrictMath} (bit-identical on every JVM,
 * interpreted or compiled) and rounded half-up to a whole GPU-millisecond once per operation.
 * Sums over queues and running jobs add {@code long}s, so their order cannot change a bit. A
 * restored state (the long and the instant, stored as they are) therefore gives the same values as
 * the uninterrupted run, and a replay of the same inputs gives the same values again (issue #16).
 *
 * @param gpuMillis decayed GPU-milliseconds at {@code asOf}
 * @param asOf the instant the value is valid at
 */
public record DecayedUsage(long gpuMillis, Instant asOf) {

  private static final double LN2 = StrictMath.log(2);

  public DecayedUsage {
    if (gpuMillis < 0) {
      throw new IllegalArgumentException("decayed usage cannot be negative: " + gpuMillis);
    }
  }

  public static DecayedUsage zero(Instant at) {
    return new DecayedUsage(0, at);
  }

  /** The value in GPU-seconds (for reports; decisions compare {@link #gpuMillis()}). */
  public double gpuSeconds() {
    return gpuMillis / 1000.0;
  }

  /** The value decayed to {@code t}: round(value × 2^(−(t − asOf) / halfLife)). */
  public DecayedUsage at(Instant t, Duration halfLife) {
    if (!t.isAfter(asOf)) {
      return this;
    }
    return new DecayedUsage(decay(gpuMillis, Duration.between(asOf, t), halfLife), t);
  }

  /**
   * This usage plus a run of {@code gpus} over [{@code from}, {@code to}), decayed continuously:
   * the run contributes gpus × h/ln2 × (1 − 2^(−(to − from)/h)) at {@code to}.
   */
  public DecayedUsage plusRun(double gpus, Instant from, Instant to, Duration halfLife) {
    Instant end = to.isAfter(asOf) ? to : asOf;
    DecayedUsage base = at(end, halfLife);
    long run = decay(runContribution(gpus, from, to, halfLife), Duration.between(to, end),
        halfLife);
    return new DecayedUsage(base.gpuMillis + run, end);
  }

  /** A run's decayed GPU-milliseconds at its own end instant (0 for an empty run). */
  public static long runContribution(double gpus, Instant from, Instant to, Duration halfLife) {
    if (!to.isAfter(from) || !(gpus > 0)) {
      return 0;
    }
    double h = halfLife.toMillis();
    double len = Duration.between(from, to).toMillis();
    return Math.round(gpus * h / LN2 * (1 - StrictMath.pow(2, -len / h)));
  }

  /** {@code gpuMillis} decayed over {@code elapsed}; a negative interval does not decay. */
  static long decay(long gpuMillis, Duration elapsed, Duration halfLife) {
    if (gpuMillis == 0 || elapsed.isNegative() || elapsed.isZero()) {
      return gpuMillis;
    }
    double f = StrictMath.pow(2, -(double) elapsed.toMillis() / halfLife.toMillis());
    return Math.round(gpuMillis * f);
  }
}
