package io.tideline.core.forecast;

import io.tideline.core.forecast.AccuracyHarness.Series;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The series the accuracy harness runs on: the shared ServeGen trace, and synthetic stress series
 * (seeded, so every run scores the same numbers), each 21 days of 10-minute windows starting on a
 * Monday, with the last 7 days (or the stress itself) scored.
 */
final class DemandSeries {

  static final Duration STEP = Duration.ofMinutes(10);
  static final int PER_DAY = 144;
  static final int DAYS = 21;
  static final int TEST_DAY = 14;
  /** A Monday. */
  static final Instant START = Instant.parse("2026-11-02T00:00:00Z");
  private static final Instant TRACE_DAY_ZERO = Instant.parse("2026-11-02T00:00:00Z");

  private DemandSeries() {}

  /**
   * The shared trace ({@code data/inference-demand-10min.csv}): aligned so its daily minimum
   * falls at 04:00 (core {@link TraceAlignment}), scaled to whole GPUs at 5 req/s per GPU (core
   * {@link DemandScaler}); days 1–10 are history, days 11–14 are scored. A window with no
   * requests at all would be a collection gap and count as missing (the trace has none).
   */
  static Series servegen() {
    DemandTrace trace = DemandTrace.load();
    TraceAlignment alignment = TraceAlignment.align(trace.offsets, trace.rps, DemandTrace.STEP,
        DemandShapeConfig.DEFAULTS);
    DemandScaler scaler = new DemandScaler(DemandShapeConfig.DEFAULTS);
    double[] gpus = new double[trace.size()];
    int testFrom = -1;
    for (int i = 0; i < trace.size(); i++) {
      gpus[i] = trace.rps[i] > 0 ? scaler.wholeGpus(trace.rps[i]) : Double.NaN;
      if (testFrom < 0 && trace.offsets[i] >= Duration.ofDays(10).toSeconds()) {
        testFrom = i;
      }
    }
    return new Series("ServeGen m-large (shared)", TRACE_DAY_ZERO.plus(alignment.shift()),
        DemandTrace.STEP, gpus, testFrom);
  }

  /** A tidal day (trough 03:00, peak 15:00), 40 GPUs on average, ±50%. */
  static double tide(int i) {
    double t = (i % PER_DAY) / (double) PER_DAY;
    return 40 * (1 + 0.5 * Math.sin(2 * Math.PI * (t - 0.375)));
  }

  /** {@link #tide} with 3% window noise and 2% day-to-day level noise. */
  private static double[] noisyTide(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    double[] g = new double[DAYS * PER_DAY];
    double day = 1;
    for (int i = 0; i < g.length; i++) {
      if (i % PER_DAY == 0) {
        day = 1 + 0.02 * gaussian(random);
      }
      g[i] = tide(i) * day * (1 + 0.03 * gaussian(random));
    }
    return g;
  }

  private static Series whole(String name, double[] g, int testFrom) {
    double[] out = new double[g.length];
    for (int i = 0; i < g.length; i++) {
      out[i] = Double.isNaN(g[i]) ? Double.NaN : Math.max(1, Math.ceil(g[i]));
    }
    return new Series(name, START, STEP, out, testFrom);
  }

  /** The demand halves at noon of day 14 (a client leaves) and stays there; scored from then. */
  static Series levelShift() {
    double[] g = noisyTide(11);
    int shift = TEST_DAY * PER_DAY + PER_DAY / 2;
    for (int i = shift; i < g.length; i++) {
      g[i] *= 0.5;
    }
    return whole("stress: level shift (x0.5)", g, shift);
  }

  /** From day 14 the demand grows linearly, doubling in the scored week. */
  static Series ramp() {
    double[] g = noisyTide(12);
    int from = TEST_DAY * PER_DAY;
    for (int i = from; i < g.length; i++) {
      g[i] *= 1 + (i - from) / (double) (7 * PER_DAY);
    }
    return whole("stress: ramp (x2 in 7 days)", g, from);
  }

  /** Bursts: 2% of windows start a burst of 1–3 windows at 3× demand. */
  static Series burst() {
    double[] g = noisyTide(13);
    SplittableRandom random = new SplittableRandom(113);
    for (int i = 0; i < g.length; i++) {
      if (random.nextDouble() < 0.02) {
        int length = 1 + random.nextInt(3);
        for (int k = 0; k < length && i + k < g.length; k++) {
          g[i + k] *= 3;
        }
        i += length;
      }
    }
    return whole("stress: bursts (3x, 2% of windows)", g, TEST_DAY * PER_DAY);
  }

  /** A telemetry gap of two hours (10:00–12:00) every day from day 13: no data, not zero. */
  static Series gap() {
    double[] g = noisyTide(14);
    for (int d = TEST_DAY - 1; d < DAYS; d++) {
      Arrays.fill(g, d * PER_DAY + 60, d * PER_DAY + 72, Double.NaN);
    }
    return whole("stress: gap (2 h a day without data)", g, TEST_DAY * PER_DAY);
  }

  /** Weekends at 60% of weekdays. */
  static Series weekly() {
    double[] g = noisyTide(15);
    for (int i = 0; i < g.length; i++) {
      int dayOfWeek = (i / PER_DAY) % 7; // 0 = Monday
      if (dayOfWeek >= 5) {
        g[i] *= 0.6;
      }
    }
    return whole("stress: weekly cycle (weekends x0.6)", g, TEST_DAY * PER_DAY);
  }

  /** A new service: no data before day 14, scored from its first window. */
  static Series coldStart() {
    double[] g = noisyTide(16);
    Arrays.fill(g, 0, TEST_DAY * PER_DAY, Double.NaN);
    return whole("stress: cold start (new service)", g, TEST_DAY * PER_DAY);
  }

  private static double gaussian(SplittableRandom random) {
    double u = 1 - random.nextDouble();
    double v = random.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}
