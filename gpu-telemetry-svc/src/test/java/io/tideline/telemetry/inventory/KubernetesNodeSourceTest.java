package io.tideline.telemetry.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.tideline.telemetry.Fixtures;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SortedMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The production inventory path against a real HTTP server answering like the API server. */
class KubernetesNodeSourceTest {

  static final String TOKEN = "eyJhbGciOiJSUzI1NiIsImtpZCI6InRlc3QifQ.sa-token";
  static final KubernetesNodeSource.TopologyLabels LABELS = new KubernetesNodeSource.TopologyLabels(
      List.of("network.topology.nvidia.com/leaf", "topology.k8s.aws/network-node-layer-3"),
      List.of("network.topology.nvidia.com/spine", "topology.k8s.aws/network-node-layer-2",
          "topology.kubernetes.io/zone"),
      List.of("network.topology.nvidia.com/core", "topology.k8s.aws/network-node-layer-1",
          "topology.kubernetes.io/region"),
      "tideline.io/nvlink-islands");
  static final FileInventorySource.GpuDefaults DEFAULTS =
      new FileInventorySource.GpuDefaults("unknown", 0, 0, 1);

  HttpServer api;
  final AtomicReference<String> seenQuery = new AtomicReference<>();
  @TempDir Path dir;
  Path tokenFile;

  @BeforeEach
  void start() throws Exception {
    tokenFile = dir.resolve("token");
    Files.writeString(tokenFile, TOKEN + "\n");
    byte[] nodes = Fixtures.text(Fixtures.NODES_JSON).getBytes(StandardCharsets.UTF_8);
    api = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    api.createContext("/api/v1/nodes", exchange -> {
      seenQuery.set(exchange.getRequestURI().getRawQuery());
      boolean authorised = ("Bearer " + TOKEN).equals(exchange.getRequestHeaders().getFirst("Authorization"));
      byte[] body = authorised ? nodes
          : "{\"kind\":\"Status\",\"status\":\"Failure\",\"reason\":\"Unauthorized\",\"code\":401}"
              .getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(authorised ? 200 : 401, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    api.start();
  }

  @AfterEach
  void stop() {
    api.stop(0);
  }

  KubernetesNodeSource source(Path token, List<String> drain) {
    return new KubernetesNodeSource("http://127.0.0.1:" + api.getAddress().getPort(),
        "nvidia.com/gpu.present=true", token, dir.resolve("no-ca.crt"), LABELS, DEFAULTS, drain);
  }

  @Test
  void shouldListGpuNodesWithTheServiceAccountToken() throws Exception {
    SortedMap<String, NodeState> nodes = source(tokenFile, List.of()).snapshot();

    assertThat(seenQuery.get()).isEqualTo("labelSelector=nvidia.com%2Fgpu.present%3Dtrue");
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
    SortedMap<String, NodeState> nodes = source(tokenFile, List.of()).snapshot();
    NodeState a = nodes.get("ip-10-0-180-136.ec2.internal");
    NodeState b = nodes.get("ip-10-0-251-220.ec2.internal");

    assertThat(a.aggregationSwitch()).isEqualTo(b.aggregationSwitch());
    assertThat(a.accessSwitch()).isNotEqualTo(b.accessSwitch());
  }

  @Test
  void shouldReportCordonedAndNotReadyNodesAsDrained() throws Exception {
    SortedMap<String, NodeState> nodes = source(tokenFile, List.of()).snapshot();

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
    assertThat(source(tokenFile, List.of("ip-10-0-180-136.ec2.internal")).snapshot()
        .get("ip-10-0-180-136.ec2.internal").drained()).isTrue();
  }

  @Test
  void shouldFailLoudlyWhenTheApiServerRefusesTheToken() throws Exception {
    Files.writeString(tokenFile, "expired");

    assertThatThrownBy(() -> source(tokenFile, List.of()).snapshot())
        .hasMessageContaining("answered 401").hasMessageContaining("Unauthorized");
  }

  @Test
  void shouldRefuseADocumentThatIsNotANodeList() throws Exception {
    var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree("{\"kind\":\"PodList\",\"items\":[]}");

    assertThatThrownBy(() -> source(tokenFile, List.of()).parse(json)).hasMessageContaining("expected a NodeList");
  }
}
