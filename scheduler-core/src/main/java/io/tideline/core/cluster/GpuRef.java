package io.tideline.core.cluster;

import java.util.Comparator;
import java.util.Objects;

/**
 * Names one physical GPU (node + index); ordered by node id then index so sets of GPUs iterate
 * deterministically.
 */
public record GpuRef(String nodeId, int gpuIndex) implements Comparable<GpuRef> {

  private static final Comparator<GpuRef> ORDER =
      Comparator.comparing(GpuRef::nodeId).thenComparingInt(GpuRef::gpuIndex);

  public GpuRef {
    Objects.requireNonNull(nodeId, "nodeId");
  }

  @Override
  public int compareTo(GpuRef o) {
    return ORDER.compare(this, o);
  }

  @Override
  public String toString() {
    return nodeId + "/" + gpuIndex;
  }
}
