package io.tideline.core.model;

import java.time.Instant;
import java.util.List;

/**
 * A job as submitted (requirements W1, W4, B2): who asks, which class it is, what it needs and how
 * it may be interrupted. The decision code's view of a {@code jobs.submitted} event.
 *
 * @param jobId unique job id
 * @param tenant organisation / business line that pays
 * @param team team inside the tenant (quota subdivision, Q2)
 * @param user owner, who receives notices
 * @param workloadClass W1 class
 * @param critical release/evaluation job (W1): may carry a preemption right
 * @param preemptible declared at submission (W4): may this job be a victim
 * @param preemptionRight requested right to preempt others (W4); quota decides if it is granted
 * @param serviceId the online service an inference instance belongs to, or {@code null}
 * @param gpuCount whole GPUs over the whole gang; 1 for a fractional instance
 * @param gpuShare share of one GPU when {@code gpuCount == 1} (e.g. 0.25); 1.0 = whole GPUs
 * @param gangSize workers that must all start together (W3)
 * @param nodes nodes the gang must span, or 0 to let placement choose
 * @param allowedGpuModels GPU models the job may run on; empty = any
 * @param submittedAt event time of the submission
 * @param deadline latest useful completion, or {@code null}
 * @param expectedDurationSeconds the submitter's estimate of run time, or 0 if unknown
 * @param checkpoint checkpoint profile, or {@code null} for jobs that do not checkpoint
 * @param dataCacheGb data cache warmed at start (P4 warm-up factor)
 */
public record JobRequest(
    String jobId,
    String tenant,
    String team,
    String user,
    WorkloadClass workloadClass,
    boolean critical,
    boolean preemptible,
    boolean preemptionRight,
    String serviceId,
    int gpuCount,
    double gpuShare,
    int gangSize,
    int nodes,
    List<String> allowedGpuModels,
    Instant submittedAt,
    Instant deadline,
    long expectedDurationSeconds,
    CheckpointProfile checkpoint,
    double dataCacheGb) {

  public JobRequest {
    allowedGpuModels = allowedGpuModels == null ? List.of() : List.copyOf(allowedGpuModels);
  }

  /** GPUs this job occupies, counting a fractional instance by its share. */
  public double gpuDemand() {
    return gpuCount == 1 ? gpuShare : gpuCount;
  }

  /** Whether this is a fractional-GPU instance (T2 small inference instance). */
  public boolean fractional() {
    return gpuCount == 1 && gpuShare < 1.0;
  }
}
