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
 * @param resources CPU, memory and extended resources each worker (pod) asks besides its GPUs
 *     ({@link Resources#NONE}: none); a job of 0 GPUs is {@code gangSize} such pods that use no
 *     GPU (issue #20, ADR 0030)
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
    double dataCacheGb,
    Resources resources) {

  /** A job whose workers ask GPUs only. */
  public JobRequest(String jobId, String tenant, String team, String user,
      WorkloadClass workloadClass, boolean critical, boolean preemptible,
      boolean preemptionRight, String serviceId, int gpuCount, double gpuShare, int gangSize,
      int nodes, List<String> allowedGpuModels, Instant submittedAt, Instant deadline,
      long expectedDurationSeconds, CheckpointProfile checkpoint, double dataCacheGb) {
    this(jobId, tenant, team, user, workloadClass, critical, preemptible, preemptionRight,
        serviceId, gpuCount, gpuShare, gangSize, nodes, allowedGpuModels, submittedAt, deadline,
        expectedDurationSeconds, checkpoint, dataCacheGb, Resources.NONE);
  }

  public JobRequest {
    allowedGpuModels = allowedGpuModels == null ? List.of() : List.copyOf(allowedGpuModels);
    resources = resources == null ? Resources.NONE : resources;
  }

  /** This request with each worker asking {@code r}. */
  public JobRequest withResources(Resources r) {
    return new JobRequest(jobId, tenant, team, user, workloadClass, critical, preemptible,
        preemptionRight, serviceId, gpuCount, gpuShare, gangSize, nodes, allowedGpuModels,
        submittedAt, deadline, expectedDurationSeconds, checkpoint, dataCacheGb, r);
  }

  /** Whether this job uses no GPU: {@code gangSize} pods of CPU, memory, extended resources. */
  public boolean gpuless() {
    return gpuCount == 0;
  }

  /**
   * GPUs of one worker as placement lays them out: {@code gpuCount / gangSize} when that divides,
   * else 1 (GPUs placed singly); 1 for a fractional instance; 0 for a GPU-less job.
   */
  public int gpusPerWorker() {
    if (gpuCount <= 0) {
      return 0;
    }
    return gangSize > 0 && gpuCount % gangSize == 0 ? gpuCount / gangSize : 1;
  }

  /**
   * Workers (pods) on a node holding {@code gpus} of this job's GPUs (for a fractional instance:
   * any share), which is what the node is charged {@link #resources} for: at least one, and one
   * per started {@link #gpusPerWorker()} GPUs.
   */
  public int workersFor(int gpus) {
    if (gpus <= 0) {
      return 0;
    }
    int w = Math.max(1, gpusPerWorker());
    return fractional() ? 1 : (gpus + w - 1) / w;
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
