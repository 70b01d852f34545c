package io.tideline.core.placement;

import io.tideline.core.model.JobRequest;
import java.util.List;

/**
 * One pod shape of the expected demand (issue #20 point 2, ADR 0037): what one worker asks and
 * where it may run, with its weight in the mix.
 *
 * @param gpus whole GPUs of one worker (1 for a fractional pod)
 * @param share share of one GPU for a fractional pod, else 1.0
 * @param cpuMillis CPU one worker asks (0 = none)
 * @param memoryBytes memory one worker asks (0 = none)
 * @param models allowed GPU models; empty = any
 * @param weight its share of the demand (the mix normalises), positive
 */
public record DemandShape(int gpus, double share, long cpuMillis, long memoryBytes,
    List<String> models, double weight) {

  public DemandShape {
    models = List.copyOf(models);
    if (gpus <= 0 || !(share > 0 && share <= 1) || (share < 1 && gpus != 1) || !(weight > 0)) {
      throw new IllegalArgumentException("demand shape: gpus " + gpus + ", share " + share
          + ", weight " + weight);
    }
  }

  /** The shape of one worker of {@code job} (a job of 0 GPUs has none: {@code null}). */
  public static DemandShape of(JobRequest job, double weight) {
    if (job.gpuless()) {
      return null;
    }
    return new DemandShape(job.fractional() ? 1 : job.gpusPerWorker(),
        job.fractional() ? job.gpuShare() : 1.0, job.resources().cpuMillis(),
        job.resources().memoryBytes(), job.allowedGpuModels(), weight);
  }

  /** Whether this is a share of one GPU. */
  public boolean fractional() {
    return share < 1.0;
  }

  /** This shape with another weight (equal shapes merge by adding weights). */
  DemandShape weighted(double w) {
    return new DemandShape(gpus, share, cpuMillis, memoryBytes, models, w);
  }
}
