package io.tideline.core.preemption;

/**
 * The P5 gain of a preemption in equivalent GPU-hours, the same unit as the P4 cost, so "gain
 * clearly exceeds cost" is one comparison ({@code gain ≥ cost × gainMargin}).
 *
 * <pre>
 *   gain = preemptor GPUs × expected wait avoided [h] × classWeight + reservation value
 *   classWeight = staticPriority(preemptor) / trainingPriority
 * </pre>
 *
 * <p>The class weight prices an hour of waiting in training GPU-hours: with the defaults an online
 * inference GPU-hour lost to waiting is worth 5 training GPU-hours, a critical training one 2.
 * Example: 8 online GPUs that would wait 10 minutes gain {@code 8 × 1/6 × 5 = 6.67} GPU-hours.
 */
public final class PreemptionGain {

  private static final double SECONDS_PER_HOUR = 3600.0;

  private final PreemptionConfig config;
  private final PreemptionScore score;

  public PreemptionGain(PreemptionConfig config) {
    this.config = config;
    this.score = new PreemptionScore(config);
  }

  /** The class weight of the preemptor's waiting time. */
  public double classWeight(PreemptionRequest request) {
    return classWeight(request.workloadClass(), request.critical());
  }

  /**
   * The class weight of an hour of {@code workloadClass} work (critical or not), in training
   * GPU-hours; the twin prices a preemptor's realised run time with it.
   */
  public double classWeight(io.tideline.core.model.WorkloadClass workloadClass,
      boolean critical) {
    return score.staticPriority(workloadClass, critical) / config.trainingPriority();
  }

  /** The gain in GPU-hours of placing {@code request} now instead of after its expected wait. */
  public double gpuHours(PreemptionRequest request) {
    double waitHours = Math.max(0, request.expectedWaitSeconds()) / SECONDS_PER_HOUR;
    return request.gpus() * waitHours * classWeight(request)
        + Math.max(0, request.reservationValueGpuHours());
  }
}
