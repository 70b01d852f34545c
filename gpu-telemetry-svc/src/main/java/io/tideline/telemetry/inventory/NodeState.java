package io.tideline.telemetry.inventory;

import io.tideline.core.model.Resources;
import java.util.Map;

/**
 * What the inventory knows of one node at one observation: its GPUs and its place in the network.
 * Switch ids are qualified by their parents ({@code DSW}, {@code DSW/PSW}, {@code DSW/PSW/ASW})
 * because switch names in topology exports are local to their parent: in the 847-host Lingjun
 * topology, {@code S1} names a different access switch under each of P8, P10 and P12.
 *
 * @param nodeId host name or hashed host id
 * @param gpuModel model of the node's GPUs
 * @param gpuMemoryMiB memory per GPU
 * @param gpuCount GPUs on the node
 * @param nvlinkIslands NVLink islands the GPUs are split into (1 = all GPUs on one NVLink domain)
 * @param accessSwitch qualified access switch id (the tightest switch domain)
 * @param aggregationSwitch qualified aggregation switch id
 * @param coreSwitch core switch id
 * @param drained no new work may be placed on the node
 * @param labels free-form labels (Kubernetes node labels)
 * @param allocatable CPU, memory and extended resources the node offers pods (Kubernetes'
 *     {@code status.allocatable}, or the topology file's columns; ADR 0030); {@link Resources#NONE}
 *     when the source declares none, so placement is not constrained in them
 */
public record NodeState(String nodeId, String gpuModel, int gpuMemoryMiB, int gpuCount,
    int nvlinkIslands, String accessSwitch, String aggregationSwitch, String coreSwitch,
    boolean drained, Map<String, String> labels, Resources allocatable) {

  public NodeState {
    labels = Map.copyOf(labels);
    allocatable = allocatable == null ? Resources.NONE : allocatable;
  }

  /** The same node, drained. */
  public NodeState drain() {
    return new NodeState(nodeId, gpuModel, gpuMemoryMiB, gpuCount, nvlinkIslands, accessSwitch,
        aggregationSwitch, coreSwitch, true, labels, allocatable);
  }

  /**
   * A node's switches, each id qualified by its parents ({@code core/agg/access}), so two access
   * switches of the same local name under different aggregation switches stay apart.
   */
  public record SwitchPath(String access, String aggregation, String core) {}

  /** Qualified switch ids from names local to their parent. */
  public static SwitchPath qualify(String dsw, String psw, String asw) {
    String agg = dsw + "/" + psw;
    return new SwitchPath(agg + "/" + asw, agg, dsw);
  }
}
