package io.tideline.core.cluster;

import io.tideline.core.model.Resources;
import java.util.Objects;

/**
 * One GPU host as inventory knows it (T1, T5): its model (heterogeneous fleets match jobs to
 * chips), how many GPUs it carries, the NVLink island its GPUs belong to, its switch path, and
 * what else it offers pods: CPU, memory and extended resources (issue #20, ADR 0030).
 *
 * @param id unique node id
 * @param gpuModel GPU model name, e.g. {@code H100}
 * @param gpuCount GPUs on the node, usually 8
 * @param nvlinkIsland NVLink domain id; for an HGX 8-GPU board it is the node id itself, for a
 *     rack-scale NVLink system several nodes share one island
 * @param path switch path ASW → PSW → DSW
 * @param allocatable CPU, memory and extended resources pods may take (Kubernetes allocatable);
 *     CPU or memory of 0 is undeclared, so the node is not constrained in it
 */
public record Node(String id, String gpuModel, int gpuCount, String nvlinkIsland, SwitchPath path,
    Resources allocatable) {

  /** A node that declares GPUs only: unconstrained in CPU and memory, no extended resources. */
  public Node(String id, String gpuModel, int gpuCount, String nvlinkIsland, SwitchPath path) {
    this(id, gpuModel, gpuCount, nvlinkIsland, path, Resources.NONE);
  }

  public Node {
    Objects.requireNonNull(allocatable, "allocatable");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(gpuModel, "gpuModel");
    Objects.requireNonNull(nvlinkIsland, "nvlinkIsland");
    Objects.requireNonNull(path, "path");
    if (gpuCount <= 0) {
      throw new IllegalArgumentException("node " + id + ": gpuCount must be positive, got "
          + gpuCount);
    }
  }

  /** The key of the domain this node belongs to at {@code level}. */
  public String domainKey(TopologyLevel level) {
    return switch (level) {
      case NODE -> id;
      case NVLINK_ISLAND -> nvlinkIsland;
      case ASW -> path.aswDomain();
      case PSW -> path.pswDomain();
      case DSW -> path.dswDomain();
      case CLUSTER -> "cluster";
    };
  }
}
