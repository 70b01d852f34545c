package io.tideline.telemetry.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.model.Resources;
import io.tideline.events.NodeChange;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class InventoryDiffTest {

  static NodeState node(String id, int gpus) {
    return new NodeState(id, "NVIDIA H100 80GB HBM3", 81559, gpus, 1, "G6/P10/S1", "G6/P10", "G6",
        false, Map.of(), Resources.NONE);
  }

  static Map<String, NodeState> of(NodeState... nodes) {
    Map<String, NodeState> m = new TreeMap<>();
    for (NodeState n : nodes) {
      m.put(n.nodeId(), n);
    }
    return m;
  }

  static List<String> changes(Map<String, NodeState> before, Map<String, NodeState> after) {
    return InventoryDiff.diff(before, after).stream()
        .map(c -> c.change() + " " + c.node().nodeId()).toList();
  }

  @Test
  void shouldReportNewNodesAsJoinedInNodeOrder() {
    assertThat(changes(of(), of(node("b", 8), node("a", 8)))).containsExactly("JOINED a", "JOINED b");
  }

  @Test
  void shouldReportAVanishedNodeAsLeftWithItsLastState() {
    var diff = InventoryDiff.diff(of(node("a", 8), node("b", 4)), of(node("a", 8)));

    assertThat(diff).singleElement().satisfies(c -> {
      assertThat(c.change()).isEqualTo(NodeChange.LEFT);
      assertThat(c.node().gpuCount()).isEqualTo(4);
    });
  }

  @Test
  void shouldReportDrainingThenUndrainingThenAChange() {
    NodeState a = node("a", 8);

    assertThat(changes(of(a), of(a.drain()))).containsExactly("DRAINED a");
    assertThat(changes(of(a.drain()), of(a))).containsExactly("UPDATED a");
    assertThat(changes(of(a), of(node("a", 7)))).containsExactly("UPDATED a");
  }

  @Test
  void shouldKeepSayingDrainedWhenADrainedNodeChanges() {
    assertThat(changes(of(node("a", 8).drain()), of(node("a", 7).drain()))).containsExactly("DRAINED a");
  }

  @Test
  void shouldReportANodeThatArrivesDrainedAsJoinedThenDrained() {
    assertThat(changes(of(), of(node("a", 8).drain()))).containsExactly("JOINED a", "DRAINED a");
  }

  @Test
  void shouldReportNothingForAnUnchangedSnapshot() {
    assertThat(changes(of(node("a", 8), node("b", 8)), of(node("a", 8), node("b", 8)))).isEmpty();
  }

  @Test
  void shouldReportANodeWhoseAllocatableShrankAsUpdated() {
    NodeState a = node("a", 8);
    NodeState declared = new NodeState("a", a.gpuModel(), a.gpuMemoryMiB(), 8, 1, a.accessSwitch(),
        a.aggregationSwitch(), a.coreSwitch(), false, Map.of(), Resources.of(192_000, 2L << 40));
    NodeState shrunk = new NodeState("a", a.gpuModel(), a.gpuMemoryMiB(), 8, 1, a.accessSwitch(),
        a.aggregationSwitch(), a.coreSwitch(), false, Map.of(), Resources.of(96_000, 2L << 40));

    assertThat(changes(of(a), of(declared))).containsExactly("UPDATED a");
    assertThat(changes(of(declared), of(shrunk))).containsExactly("UPDATED a");
    assertThat(changes(of(shrunk), of(shrunk))).isEmpty();
  }
}
