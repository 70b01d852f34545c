package io.tideline.simulator;

import io.tideline.core.forecast.DemandScaler;
import io.tideline.core.forecast.DemandShapeConfig;
import io.tideline.core.forecast.TraceAlignment;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Online demand in GPUs per service and demand step (W2), from the public request-rate trace: the
 * trace is aligned to a wall clock by the core's {@link TraceAlignment} (daily minimum at 04:00),
 * converted to GPUs by the core's {@link DemandScaler} with a throughput chosen so the trace's
 * maximum needs {@link SimConfig#onlinePeakShare()} of the fleet, split over the services by their
 * shares, and given each service its own seeded AR(1) noise. A horizon longer than the trace wraps.
 */
public final class InferenceDemand {

  /** Salt separating the demand noise stream from the workload stream of the same seed. */
  private static final long NOISE_SALT = 0x5EED_DE3AL;

  private final SimConfig config;
  private final double[][] gpus;
  private final TraceAlignment alignment;
  private final double peakTotal;

  private InferenceDemand(SimConfig config, double[][] gpus, TraceAlignment alignment,
      double peakTotal) {
    this.config = config;
    this.gpus = gpus;
    this.alignment = alignment;
    this.peakTotal = peakTotal;
  }

  /** Reads the trace ({@code offset_s,request_rate_rps,...}) and builds the per-service demand. */
  public static InferenceDemand load(Reader traceCsv, SimConfig config) {
    // 1. read offsets and rates
    List<long[]> offsets = new ArrayList<>();
    List<Double> rates = new ArrayList<>();
    try (BufferedReader in = new BufferedReader(traceCsv)) {
      String line = in.readLine();
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        String[] f = line.split(",", -1);
        offsets.add(new long[] {Long.parseLong(f[0].strip())});
        rates.add(Double.parseDouble(f[1].strip()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int n = rates.size();
    long[] off = new long[n];
    double[] rate = new double[n];
    double maxRate = 0;
    for (int i = 0; i < n; i++) {
      off[i] = offsets.get(i)[0];
      rate[i] = rates.get(i);
      maxRate = Math.max(maxRate, rate[i]);
    }
    // 2. align on the wall clock and scale to GPUs with the core's helpers
    Duration step = config.demandStep();
    DemandShapeConfig shapeDefaults = DemandShapeConfig.DEFAULTS;
    TraceAlignment alignment = TraceAlignment.align(off, rate, step, shapeDefaults);
    double rpsPerGpu = maxRate / (config.onlinePeakShare() * config.fleetGpus());
    DemandScaler scaler = new DemandScaler(new DemandShapeConfig(rpsPerGpu,
        shapeDefaults.dailyMinimumAt(), shapeDefaults.smoothing(), shapeDefaults.dayStart(),
        shapeDefaults.dayEnd()));
    // 3. per service and step: aligned trace value × share × seeded noise
    long stepSeconds = step.toSeconds();
    long traceSeconds = n * stepSeconds;
    int steps = (int) (Duration.ofDays(config.days()).toSeconds() / stepSeconds);
    List<OnlineService> services = config.services();
    double[][] gpus = new double[services.size()][steps];
    SplittableRandom noise = new SplittableRandom(config.seed() ^ NOISE_SALT);
    double[] ar = new double[services.size()];
    double innovation = Math.sqrt(1 - config.noiseCorrelation() * config.noiseCorrelation());
    double peak = 0;
    for (int s = 0; s < steps; s++) {
      long traceOffset = Math.floorMod(s * stepSeconds - alignment.shift().toSeconds(),
          traceSeconds);
      double total = scaler.gpus(rate[(int) (traceOffset / stepSeconds)]);
      double sum = 0;
      for (int k = 0; k < services.size(); k++) {
        // AR(1) noise: services drift around their share instead of jumping every step
        ar[k] = config.noiseCorrelation() * ar[k] + innovation * SyntheticWorkload.gaussian(noise);
        double factor = Math.max(0, 1 + config.serviceNoise() * ar[k]);
        gpus[k][s] = total * services.get(k).demandShare() * factor;
        sum += gpus[k][s];
      }
      peak = Math.max(peak, sum);
    }
    return new InferenceDemand(config, gpus, alignment, peak);
  }

  /** The alignment the core computed for the trace. */
  public TraceAlignment alignment() {
    return alignment;
  }

  /** Number of demand steps in the horizon. */
  public int steps() {
    return gpus[0].length;
  }

  /** Demand step holding {@code at}, clamped to the horizon. */
  public int stepOf(Instant at) {
    long s = Duration.between(config.start(), at).toSeconds() / config.demandStep().toSeconds();
    return (int) Math.max(0, Math.min(steps() - 1, s));
  }

  /** GPUs service {@code service} (index in the config) needs at step {@code step}. */
  public double gpus(int service, int step) {
    return gpus[service][step];
  }

  /** Instances service {@code service} needs at step {@code step}. */
  public int instances(int service, int step) {
    OnlineService svc = config.services().get(service);
    return (int) Math.ceil(gpus[service][step] / svc.instanceGpus() - 1e-9);
  }

  /** The highest total online demand over the horizon, GPUs. */
  public double peakTotal() {
    return peakTotal;
  }

  /** Mean total online demand per step of the day (for the F4 slot engine), GPUs. */
  public double[] meanDailyProfile(int stepsPerDay) {
    double[] sum = new double[stepsPerDay];
    int[] count = new int[stepsPerDay];
    for (int s = 0; s < steps(); s++) {
      double total = 0;
      for (double[] g : gpus) {
        total += g[s];
      }
      sum[s % stepsPerDay] += total;
      count[s % stepsPerDay]++;
    }
    for (int i = 0; i < stepsPerDay; i++) {
      sum[i] = count[i] == 0 ? 0 : sum[i] / count[i];
    }
    return sum;
  }
}
