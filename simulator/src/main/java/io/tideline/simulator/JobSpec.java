package io.tideline.simulator;

import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One offline (training or batch) job of the workload, as a trace line or the synthetic generator
 * describes it: what the twin submits and how much work it carries.
 *
 * @param id job id
 * @param submitAt submission instant
 * @param durationSeconds run time at full speed on its GPUs (W3: hours to days)
 * @param gpus whole GPUs of the gang, 1 for a fractional job
 * @param gpuShare share of one GPU when fractional, 1.0 otherwise
 * @param gpuModel required GPU model, or empty for any
 * @param workloadClass W1 class (never online inference: that comes from the demand trace)
 * @param critical W1 critical job (may preempt, W4)
 * @param tenant paying tenant
 * @param preemptible W4 declared at submission
 * @param checkpoint P4 checkpoint profile
 */
public record JobSpec(
    String id,
    Instant submitAt,
    long durationSeconds,
    int gpus,
    double gpuShare,
    String gpuModel,
    WorkloadClass workloadClass,
    boolean critical,
    String tenant,
    boolean preemptible,
    CheckpointKind checkpoint) {

  /** Data cache warmed at start, per GPU (P4 warm-up factor). */
  static final double DATA_CACHE_GB_PER_GPU = 8.0;

  /** GPUs on one node a gang worker takes (HGX boards): larger gangs are whole-node workers. */
  static final int WORKER_GPUS = 8;

  public JobSpec {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(submitAt, "submitAt");
    Objects.requireNonNull(workloadClass, "workloadClass");
    Objects.requireNonNull(checkpoint, "checkpoint");
    gpuModel = gpuModel == null ? "" : gpuModel;
    if (workloadClass == WorkloadClass.ONLINE_INFERENCE) {
      throw new IllegalArgumentException(id + ": online inference comes from the demand trace");
    }
    if (gpus <= 0 || !(gpuShare > 0 && gpuShare <= 1) || (gpus > 1 && gpuShare < 1)
        || durationSeconds <= 0) {
      throw new IllegalArgumentException(id + ": bad shape or duration");
    }
  }

  /** GPUs held, a fractional job by its share. */
  public double gpuDemand() {
    return gpus == 1 ? gpuShare : gpus;
  }

  /**
   * The request the decision code sees. Gangs of more than {@link #WORKER_GPUS} GPUs run one
   * worker per node; smaller jobs are a single worker on one node (W3 all-or-nothing either way).
   */
  public JobRequest toRequest(List<String> allowedModels) {
    int gang = gpus > WORKER_GPUS && gpus % WORKER_GPUS == 0 ? gpus / WORKER_GPUS : 1;
    return new JobRequest(id, tenant, tenant, tenant + "-owner", workloadClass, critical,
        preemptible, critical, null, gpus, gpuShare, gang, 0, allowedModels, submitAt, null,
        durationSeconds, checkpoint.profile(), DATA_CACHE_GB_PER_GPU * gpuDemand());
  }
}
