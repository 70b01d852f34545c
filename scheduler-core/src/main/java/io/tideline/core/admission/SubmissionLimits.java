package io.tideline.core.admission;

/**
 * Bounds a submission must respect to be accepted at all (before any quota question).
 *
 * @param maxGpusPerJob largest gang the fleet accepts; default 4,096 GPUs
 * @param minGpuShare smallest fraction of one GPU an instance may ask for; default 0.05 (1/20)
 * @param maxGangSize largest number of workers in one gang; default 4,096
 */
public record SubmissionLimits(int maxGpusPerJob, double minGpuShare, int maxGangSize) {

  /** The documented defaults. */
  public static final SubmissionLimits DEFAULTS = new SubmissionLimits(4096, 0.05, 4096);
}
