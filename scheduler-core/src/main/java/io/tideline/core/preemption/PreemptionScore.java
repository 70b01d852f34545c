package io.tideline.core.preemption;

import io.tideline.core.model.WorkloadClass;
import java.time.Instant;

/**
 * The P1 score, which says how much a job is worth keeping (as a victim) or placing (as a
 * preemptor). The same formula on both sides makes the P2 threshold a comparison of like with like.
 *
 * <pre>
 *   score          = staticPriority × dynamicWeight
 *   staticPriority = classPriority(class) × (critical ? criticalMultiplier : 1)
 *                    defaults: online inference 10, batch inference 5, training 2, exploratory 1;
 *                    critical × 2
 *   dynamicWeight  = 1 + runTimeWeightPerHour × hours since last (re)start
 *                      + gpuHourWeight × GPU-hours consumed
 *                    defaults: 0.05 per run hour, 0.0005 per GPU-hour
 * </pre>
 *
 * <p>Example: a 64-GPU training job 10 h into its run having consumed 640 GPU-hours scores
 * {@code 2 × (1 + 0.5 + 0.32) = 3.64}; an online inference preemptor scores 10, a ratio of 2.75.
 * Old and big jobs grow expensive to evict, as P1 intends. A preemptor has run 0 hours; a resumed
 * job brings its earlier GPU-hours.
 */
public final class PreemptionScore {

  private static final double SECONDS_PER_HOUR = 3600.0;

  private final PreemptionConfig config;

  public PreemptionScore(PreemptionConfig config) {
    this.config = config;
  }

  /** The class priority, multiplied for critical jobs. */
  public double staticPriority(WorkloadClass workloadClass, boolean critical) {
    double base = config.classPriority(workloadClass);
    return critical ? base * config.criticalMultiplier() : base;
  }

  /** {@code 1 + a × runHours + b × gpuHoursConsumed}, linear in both (P1). */
  public double dynamicWeight(double runHours, double gpuHoursConsumed) {
    return 1.0 + config.runTimeWeightPerHour() * Math.max(0, runHours)
        + config.gpuHourWeight() * Math.max(0, gpuHoursConsumed);
  }

  /** A running job's score at {@code now}. */
  public double of(RunningJob job, Instant now) {
    double runHours = Times.millisBetween(job.startedAt(), now) / 1000.0 / SECONDS_PER_HOUR;
    return staticPriority(job.workloadClass(), job.critical())
        * dynamicWeight(runHours, job.gpuHoursConsumed());
  }

  /** A preemptor's score: it has not run yet, but a resumed job keeps its consumed GPU-hours. */
  public double of(PreemptionRequest request) {
    return staticPriority(request.workloadClass(), request.critical())
        * dynamicWeight(0, request.gpuHoursConsumed());
  }
}
