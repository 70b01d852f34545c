package io.tideline.core.cluster;

import java.util.Objects;

/**
 * A share of one GPU given to a job: the unit of the allocation ledger. A whole GPU has share 1.0;
 * a fractional inference instance (T2) holds e.g. 0.25 and shares the GPU with others.
 *
 * @param nodeId node holding the GPU
 * @param gpuIndex GPU index on the node, 0-based
 * @param share fraction of the GPU, in (0, 1]
 */
public record GpuAssignment(String nodeId, int gpuIndex, double share) {

  public GpuAssignment {
    Objects.requireNonNull(nodeId, "nodeId");
    if (gpuIndex < 0) {
      throw new IllegalArgumentException("gpuIndex must not be negative, got " + gpuIndex);
    }
    if (!(share > 0 && share <= 1.0)) {
      throw new IllegalArgumentException("share must be in (0, 1], got " + share);
    }
  }

  /** The GPU this assignment is on. */
  public GpuRef gpu() {
    return new GpuRef(nodeId, gpuIndex);
  }
}
