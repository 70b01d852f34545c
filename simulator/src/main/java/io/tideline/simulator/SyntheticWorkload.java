package io.tideline.simulator;

import io.tideline.core.model.WorkloadClass;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A seeded generator of offline jobs (W1, W3, W4): Poisson arrivals over the horizon, a size mix
 * from single GPUs to 64-GPU gangs, log-normal durations of hours to days, checkpoint profiles by
 * model size, tenants drawn uniformly. Same config, same jobs.
 */
public final class SyntheticWorkload {

  /** Gang sizes and their weights: half of the jobs need a whole node or more (T2 pressure). */
  static final int[] SIZES = {1, 2, 4, 8, 16, 32, 64};
  static final double[] SIZE_WEIGHTS = {0.20, 0.12, 0.13, 0.30, 0.14, 0.08, 0.03};

  /** Batch inference: fractional, one or two GPUs, half an hour to four hours. */
  static final double[] BATCH_SHARES = {0.5, 1.0, 1.0, 2.0};
  static final double BATCH_MIN_HOURS = 0.5;
  static final double BATCH_MAX_HOURS = 4.0;

  /** Log-normal spread of training durations (σ of the log). */
  static final double DURATION_SIGMA = 1.0;

  private static final double SECONDS_PER_HOUR = 3600.0;

  private SyntheticWorkload() {}

  /** Seed offset of the warm start's own stream, so it leaves the arrivals unchanged. */
  private static final long WARM_STREAM = 0x5741524dL;

  /**
   * The jobs submitted in {@code [config.start(), config.end())}, in submission order: first the
   * warm start's training ({@link SimConfig#warmStartShare}, ids {@code warm-NNNN}, all at the
   * start, drawn from their own seeded stream), then the Poisson arrivals.
   */
  public static List<JobSpec> generate(SimConfig config) {
    List<JobSpec> jobs = new ArrayList<>(warmStart(config));
    SplittableRandom rnd = new SplittableRandom(config.seed());
    double meanGapSeconds = Duration.ofDays(1).toSeconds() / config.jobsPerDay();
    double t = 0;
    long horizon = Duration.between(config.start(), config.end()).toSeconds();
    int n = 0;
    while (true) {
      // 1. next arrival of a Poisson process
      t += -Math.log(1 - rnd.nextDouble()) * meanGapSeconds;
      if (t >= horizon) {
        break;
      }
      Instant at = config.start().plusSeconds((long) t);
      String id = String.format("job-%05d", n++);
      String tenant = config.tenants().get(rnd.nextInt(config.tenants().size()));
      // 2. batch inference or training
      if (rnd.nextDouble() < config.batchShare()) {
        double g = BATCH_SHARES[rnd.nextInt(BATCH_SHARES.length)];
        double hours = BATCH_MIN_HOURS * Math.pow(BATCH_MAX_HOURS / BATCH_MIN_HOURS,
            rnd.nextDouble());
        jobs.add(new JobSpec(id, at, (long) (hours * SECONDS_PER_HOUR), g < 1 ? 1 : (int) g,
            g < 1 ? g : 1.0, "", WorkloadClass.BATCH_INFERENCE, false, tenant, true,
            CheckpointKind.NONE));
        continue;
      }
      // 3. training: size, duration, tier, preemptibility, checkpoint profile
      jobs.add(training(config, rnd, id, at, tenant));
    }
    return jobs;
  }

  /**
   * The warm start: training jobs at the start, drawn like any training job, until their GPUs
   * reach {@code warmStartShare} of the fleet (the last one may overshoot by less than its size).
   */
  static List<JobSpec> warmStart(SimConfig config) {
    List<JobSpec> out = new ArrayList<>();
    double target = config.warmStartShare() * config.fleetGpus();
    SplittableRandom rnd = new SplittableRandom(config.seed() ^ WARM_STREAM);
    int gpus = 0;
    while (gpus < target) {
      String tenant = config.tenants().get(rnd.nextInt(config.tenants().size()));
      JobSpec j = training(config, rnd, String.format("warm-%04d", out.size()), config.start(),
          tenant);
      out.add(j);
      gpus += j.gpus();
    }
    return out;
  }

  /** One training job: size, duration, tier, preemptibility, checkpoint profile. */
  private static JobSpec training(SimConfig config, SplittableRandom rnd, String id, Instant at,
      String tenant) {
    int gpus = SIZES[pick(rnd, SIZE_WEIGHTS)];
    double hours = config.medianDurationHours() * Math.exp(DURATION_SIGMA * gaussian(rnd));
    hours = Math.max(config.minDurationHours(), Math.min(config.maxDurationHours(), hours));
    boolean exploratory = rnd.nextDouble() < config.exploratoryShare();
    boolean critical = !exploratory && rnd.nextDouble() < config.criticalShare();
    boolean preemptible = !critical && rnd.nextDouble() < config.preemptibleShare();
    CheckpointKind cp = gpus <= 2 ? CheckpointKind.SMALL
        : gpus <= 16 ? CheckpointKind.MEDIUM : CheckpointKind.LARGE;
    return new JobSpec(id, at, (long) (hours * SECONDS_PER_HOUR), gpus, 1.0, "",
        exploratory ? WorkloadClass.EXPLORATORY_TRAINING : WorkloadClass.TRAINING, critical,
        tenant, preemptible, cp);
  }

  private static int pick(SplittableRandom rnd, double[] weights) {
    double total = 0;
    for (double w : weights) {
      total += w;
    }
    double x = rnd.nextDouble() * total;
    for (int i = 0; i < weights.length; i++) {
      x -= weights[i];
      if (x < 0) {
        return i;
      }
    }
    return weights.length - 1;
  }

  /** A standard normal draw (Box–Muller), from the seeded stream only. */
  static double gaussian(SplittableRandom rnd) {
    double u = 1 - rnd.nextDouble();
    double v = rnd.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}
