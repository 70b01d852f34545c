package io.tideline.quota.definition;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.quota.QuotaNode;
import io.tideline.platform.kernel.quota.QuotaDocuments;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The bundled example definition is the one `./tideline up` runs with, so it must describe the
 * local fleet: the 847-host topology the local gpu-telemetry-svc loads, at its default 8 GPUs a
 * host. Counted from the same CSV file, not from a literal.
 */
class LocalDefinitionTest {

  static final Path LOCAL_TOPOLOGY = Path.of("..", "simulator", "src", "main", "resources", "io",
      "tideline", "simulator", "network-topology-847-hosts.csv");
  static final int GPUS_PER_HOST = 8; // gpu-telemetry-svc's default node shape

  @Test
  void shouldDescribeTheLocalFleetAndLeaveASharedPool() throws Exception {
    QuotaDocuments.Parsed parsed = QuotaDocuments.parse(bundled(), null);
    long hosts;
    try (var lines = Files.lines(LOCAL_TOPOLOGY)) {
      hosts = lines.skip(1).filter(l -> !l.isBlank()).count();
    }

    assertThat(hosts).isEqualTo(847);
    assertThat(parsed.fleetGpus()).isEqualTo(hosts * GPUS_PER_HOST);
    assertThat(parsed.definition().queueFloorSum()).isEqualTo(4800)
        .isLessThan(parsed.fleetGpus());
    assertThat(parsed.definition().queueServing("search-api")).map(QuotaNode::path)
        .hasValue("acme/search/ranking/inference");
  }

  private static String bundled() throws IOException {
    try (InputStream in = LocalDefinitionTest.class.getClassLoader()
        .getResourceAsStream("quota/definition.yaml")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
