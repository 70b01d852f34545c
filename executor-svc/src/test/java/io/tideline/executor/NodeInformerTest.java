package io.tideline.executor;

import static io.tideline.executor.ExecutorHarness.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tideline.events.NodeChange;
import io.tideline.executor.kube.KubeApiServer;
import io.tideline.telemetry.inventory.FileInventorySource;
import io.tideline.telemetry.inventory.InventoryDiff;
import io.tideline.telemetry.inventory.KubernetesNodeSource;
import io.tideline.telemetry.inventory.NodeState;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * gpu-telemetry-svc's inventory on the fabric8 client (issue #17, point 5), against the real
 * kube-apiserver: a node informer sees joins, cordons, label changes and departures as they
 * happen, each one a change of the inventory telemetry publishes on {@code cluster.inventory}.
 * It reads with the executor's service account (whose ClusterRole grants nodes get/list/watch,
 * as gpu-telemetry-svc's does).
 */
class NodeInformerTest {

  static KubeApiServer kube;

  @BeforeAll
  static void start() throws Exception {
    kube = KubeApiServer.start("nodes");
    KubernetesClient admin = kube.admin();
    admin.rbac().clusterRoles().resource(new io.fabric8.kubernetes.api.model.rbac
        .ClusterRoleBuilder().withNewMetadata().withName("node-reader").endMetadata()
        .addNewRule().withApiGroups("").withResources("nodes")
        .withVerbs("get", "list", "watch").endRule().build()).create();
    admin.rbac().clusterRoleBindings().resource(new io.fabric8.kubernetes.api.model.rbac
        .ClusterRoleBindingBuilder().withNewMetadata().withName("node-reader").endMetadata()
        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "node-reader")
        .addNewSubject().withKind("User").withName(KubeApiServer.EXECUTOR_USER).endSubject()
        .build()).create();
  }

  @AfterAll
  static void stop() {
    if (kube != null) {
      kube.close();
    }
  }

  @Test
  void shouldSeeJoinsCordonsLabelChangesAndDeparturesAsTheyHappen() throws Exception {
    KubernetesClient admin = kube.admin();
    List<SortedMap<String, NodeState>> seen = Collections.synchronizedList(new ArrayList<>());
    try (KubernetesNodeSource source = new KubernetesNodeSource(kube.executor(),
        "nvidia.com/gpu.present=true", new KubernetesNodeSource.TopologyLabels(
            List.of("network.tideline.io/asw"), List.of("network.tideline.io/psw"),
            List.of("network.tideline.io/dsw"), "tideline.io/nvlink-islands"),
        new FileInventorySource.GpuDefaults("unknown", 8, 81920, 1), List.of())) {
      source.start(() -> {
        try {
          seen.add(source.snapshot());
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      });
      SortedMap<String, NodeState> last = new TreeMap<>(source.snapshot());
      assertThat(last).isEmpty();

      admin.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-a")
          .addToLabels("nvidia.com/gpu.present", "true")
          .addToLabels("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")
          .addToLabels("network.tideline.io/asw", "asw1")
          .addToLabels("network.tideline.io/psw", "psw1")
          .addToLabels("network.tideline.io/dsw", "dsw1").endMetadata().build()).create();
      last = expect(source, last, NodeChange.JOINED);
      assertThat(last.get("gpu-a").accessSwitch()).isEqualTo("dsw1/psw1/asw1");

      admin.nodes().withName("gpu-a").edit(n -> new NodeBuilder(n).editSpec()
          .withUnschedulable(true).endSpec().build()); // kubectl cordon
      last = expect(source, last, NodeChange.DRAINED);

      admin.nodes().withName("gpu-a").edit(n -> new NodeBuilder(n).editSpec()
          .withUnschedulable(false).endSpec().editMetadata()
          .addToLabels("network.tideline.io/asw", "asw2").endMetadata().build());
      last = expect(source, last, NodeChange.UPDATED);
      assertThat(last.get("gpu-a").accessSwitch()).isEqualTo("dsw1/psw1/asw2");

      admin.nodes().withName("gpu-a").delete();
      expect(source, last, NodeChange.LEFT);
      assertThat(seen).as("each change reported by the informer, not by polling").isNotEmpty();
    }
  }

  private static SortedMap<String, NodeState> expect(KubernetesNodeSource source,
      SortedMap<String, NodeState> before, NodeChange change) {
    List<InventoryDiff.Change> changes = new ArrayList<>();
    await(change.name(), () -> {
      try {
        changes.clear();
        changes.addAll(InventoryDiff.diff(before, source.snapshot()));
        return !changes.isEmpty();
      } catch (Exception e) {
        return false;
      }
    });
    assertThat(changes).extracting(InventoryDiff.Change::change).containsExactly(change);
    try {
      return new TreeMap<>(source.snapshot());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

}
