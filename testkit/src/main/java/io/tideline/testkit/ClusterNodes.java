package io.tideline.testkit;

import io.tideline.events.NodeChange;
import io.tideline.events.NodeInventory;
import io.tideline.events.SwitchPath;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The standard test fleet the placement and preemption scenarios share, as inventory events: one
 * definition of "n01…, 8 H100 GPUs each, two nodes per access switch" instead of a copy per driver.
 */
public final class ClusterNodes {

  private ClusterNodes() {}

  /** {@code count} nodes of 8 H100 GPUs, {@code n01…}, two per access switch, JOINED {@code at}. */
  public static List<NodeInventory> joined(String cluster, int count, Instant at) {
    List<NodeInventory> nodes = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      String id = String.format("n%02d", i);
      nodes.add(NodeInventory.newBuilder().setCluster(cluster).setNodeId(id)
          .setChange(NodeChange.JOINED).setObservedAt(at).setGpuModel("H100")
          .setGpuMemoryMiB(81920).setGpuCount(8)
          .setSwitchPath(SwitchPath.newBuilder().setAccessSwitch("asw" + ((i + 1) / 2))
              .setAggregationSwitch("psw1").setCoreSwitch("dsw1").build())
          .build());
    }
    return nodes;
  }
}
