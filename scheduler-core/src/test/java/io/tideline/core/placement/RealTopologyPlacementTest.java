package io.tideline.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.Node;
import io.tideline.core.cluster.TestJobs;
import io.tideline.core.cluster.TopologyCsv;
import io.tideline.core.cluster.TopologyLevel;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/** Placement on the real 847-host Clos topology: domain sizes decide where a gang lands. */
class RealTopologyPlacementTest {

  static final Instant NOW = Instant.parse("2026-11-02T14:00:00Z");
  final Placer placer = new Placer(PlacementConfig.DEFAULTS);

  static ClusterSnapshot emptyReal() {
    try (Reader r = new InputStreamReader(Objects.requireNonNull(
        RealTopologyPlacementTest.class.getResourceAsStream(
            "/io/tideline/core/cluster/network-topology-847-hosts.csv")), StandardCharsets.UTF_8)) {
      List<Node> nodes = TopologyCsv.parse(r, "H100", 8);
      return ClusterSnapshot.empty(nodes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void shouldKeepA64GpuGangUnderOneAccessSwitchOfTheRealFabric() {
    // the largest ASW domains hold 8 hosts = 64 GPUs
    PlacementDecision d = placer.decide(NOW, emptyReal(), TestJobs.training("g64", 64).build());

    assertThat(d.level()).isEqualTo(TopologyLevel.ASW);
    assertThat(d.crossDomain()).isFalse();
    assertThat(d.nodeIds()).hasSize(8);
  }

  @Test
  void shouldCrossIntoTheAggregationSwitchForA72GpuGang() {
    PlacementDecision d = placer.decide(NOW, emptyReal(), TestJobs.training("g72", 72).build());

    assertThat(d.level()).isEqualTo(TopologyLevel.PSW);
    assertThat(d.crossDomain()).isTrue();
    // smallest PSW that fits (G6/P8, 179 hosts); 8 whole hosts of one ASW plus one more
    assertThat(d.trace()).anySatisfy(t -> assertThat(t.subject()).isEqualTo("G6/P8"));
    assertThat(d.nodeIds()).hasSize(9);
    assertThat(d.score()).isEqualTo(0.6);
  }
}
