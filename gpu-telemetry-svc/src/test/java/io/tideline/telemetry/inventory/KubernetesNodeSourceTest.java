package io.tideline.telemetry.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.tideline.core.model.Resources;
import io.tideline.telemetry.Fixtures;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

/**
 * How the production inventory reads Kubernetes nodes (the informer itself runs against a real
 * kube-apiserver in executor-svc's {@code NodeInformerTest}, where the API server is built).
 */
class KubernetesNodeSourceTest {

  static final KubernetesNodeSource.TopologyLabels LABELS = new KubernetesNodeSource.TopologyLabels(
      List.of("network.topology.nvidia.com/leaf", "topology.k8s.aws/network-node-layer-3"),
      List.of("network.topology.nvidia.com/spine", "topology.k8s.aws/network-node-layer-2",
          "topology.kubernetes.io/zone"),
      List.of("network.topology.nvidia.com/core", "topology.k8s.aws/network-node-layer-1",
          "topology.kubernetes.io/region"),
      "tideline.io/nvlink-islands");
  static final FileInventorySource.GpuDefaults DEFAULTS =
      new FileInventorySource.GpuDefaults("unknown", 0, 0, 1);

  /** The fixture (three real node documents) as the informer's cache would hold them. */
  SortedMap<String, NodeState> nodes(List<String> drain) throws Exception {
    NodeList list = Serialization.unmarshal(Fixtures.text(Fixtures.NODES_JSON), NodeList.class);
    return new KubernetesNodeSource(null, "nvidia.com/gpu.present=true", LABELS, DEFAULTS, drain)
        .parse(list.getItems());
  }

  @Test
  void shouldReadGpuCountModelMemoryAndSwitchPathFromTheNodes() throws Exception {
    SortedMap<String, NodeState> nodes = nodes(List.of());

    assertThat(nodes.keySet()).containsExactly("ip-10-0-180-136.ec2.internal",
        "ip-10-0-251-220.ec2.internal", "lke529760-766837-0a634ab30000");
    NodeState h100 = nodes.get("ip-10-0-180-136.ec2.internal");
    assertThat(h100.gpuCount()).isEqualTo(8);
    assertThat(h100.gpuModel()).isEqualTo("NVIDIA-H100-80GB-HBM3");
    assertThat(h100.gpuMemoryMiB()).isEqualTo(81559);
    assertThat(h100.nvlinkIslands()).isEqualTo(1);
    assertThat(h100.drained()).isFalse();
    assertThat(h100.coreSwitch()).isEqualTo("nn-e50490a237cb0f01a");
    assertThat(h100.aggregationSwitch()).isEqualTo("nn-e50490a237cb0f01a/nn-3a2b9c1d7e6f54a10");
    assertThat(h100.accessSwitch())
        .isEqualTo("nn-e50490a237cb0f01a/nn-3a2b9c1d7e6f54a10/nn-8c7d6e5f4a3b2c1d0");
    assertThat(h100.labels()).containsEntry("node.kubernetes.io/instance-type", "p5.48xlarge");
  }

  @Test
  void shouldPutTwoEksNodesUnderOneSpineButDifferentLeaves() throws Exception {
    SortedMap<String, NodeState> nodes = nodes(List.of());
    NodeState a = nodes.get("ip-10-0-180-136.ec2.internal");
    NodeState b = nodes.get("ip-10-0-251-220.ec2.internal");

    assertThat(a.aggregationSwitch()).isEqualTo(b.aggregationSwitch());
    assertThat(a.accessSwitch()).isNotEqualTo(b.accessSwitch());
  }

  @Test
  void shouldReportCordonedAndNotReadyNodesAsDrained() throws Exception {
    SortedMap<String, NodeState> nodes = nodes(List.of());

    assertThat(nodes.get("ip-10-0-251-220.ec2.internal").drained()).isTrue(); // cordoned
    NodeState lke = nodes.get("lke529760-766837-0a634ab30000");
    assertThat(lke.drained()).isTrue(); // Ready=False
    assertThat(lke.gpuCount()).isEqualTo(1);
    assertThat(lke.gpuModel()).isEqualTo("NVIDIA-RTX-4000-Ada-Generation");
    assertThat(lke.coreSwitch()).isEqualTo("us-ord");
    assertThat(lke.accessSwitch()).isEqualTo("us-ord/unknown/unknown");
  }

  @Test
  void shouldDrainNodesOnTheDrainList() throws Exception {
    assertThat(nodes(List.of("ip-10-0-180-136.ec2.internal"))
        .get("ip-10-0-180-136.ec2.internal").drained()).isTrue();
  }

  @Test
  void shouldReadWhatANodeOffersPodsFromItsAllocatable() throws Exception {
    SortedMap<String, NodeState> nodes = nodes(List.of());

    // allocatable: cpu 191450m, memory 2070000000Ki, nvidia.com/gpu 8, vpc.amazonaws.com/efa 32, pods 100
    Resources h100 = nodes.get("ip-10-0-180-136.ec2.internal").allocatable();
    assertThat(h100.cpuMillis()).isEqualTo(191_450);
    assertThat(h100.memoryBytes()).isEqualTo(2_070_000_000L * 1024);
    assertThat(h100.extended()).containsExactly(Map.entry("vpc.amazonaws.com/efa", 32L));
    // a node document without status.allocatable declares nothing, so nothing limits it
    assertThat(nodes.get("lke529760-766837-0a634ab30000").allocatable()).isEqualTo(Resources.NONE);
  }

  @Test
  void shouldLeaveAnUnreadableAllocatableUndeclaredAndStillReportTheNode() throws Exception {
    Node node = new NodeBuilder()
        .withNewMetadata().withName("odd").endMetadata()
        .withNewStatus()
        .addToAllocatable("cpu", new Quantity("64"))
        .addToAllocatable("memory", new Quantity("1e30")) // above the contracts' 2^62
        .addToAllocatable("rdma/hca", new Quantity("lots")) // not a quantity
        .addToAllocatable("vpc.amazonaws.com/efa", new Quantity("4"))
        .endStatus().build();

    NodeState odd = new KubernetesNodeSource(null, "", LABELS, DEFAULTS, List.of())
        .parse(List.of(node)).get("odd");

    assertThat(odd.allocatable())
        .isEqualTo(Resources.of(64_000, 0).with("vpc.amazonaws.com/efa", 4));
  }
}
