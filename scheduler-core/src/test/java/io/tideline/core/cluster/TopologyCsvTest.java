package io.tideline.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TopologyCsvTest {

  /** The real 847-host Clos topology (alibaba-lingjun-dataset-2023, Apache-2.0). */
  static List<Node> realTopology() {
    try (Reader r = new InputStreamReader(Objects.requireNonNull(
        TopologyCsvTest.class.getResourceAsStream("network-topology-847-hosts.csv")),
        StandardCharsets.UTF_8)) {
      return TopologyCsv.parse(r, "H100", 8);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void shouldReadAllHostsOfTheRealTopologyWithTheirDomainCounts() {
    Topology topo = Topology.of(realTopology());

    assertThat(topo.size()).isEqualTo(847);
    assertThat(topo.totalGpus()).isEqualTo(847 * 8);
    assertThat(topo.domainCount(TopologyLevel.DSW)).isEqualTo(1);
    assertThat(topo.domainCount(TopologyLevel.PSW)).isEqualTo(3);
    // 48 ASW names, reused under different PSWs: 119 distinct access-switch domains
    assertThat(topo.domainCount(TopologyLevel.ASW)).isEqualTo(119);
    Set<String> aswNames = new HashSet<>();
    topo.nodes().forEach(n -> aswNames.add(n.path().asw()));
    assertThat(aswNames).hasSize(48);
    assertThat(topo.domainCount(TopologyLevel.NVLINK_ISLAND)).isEqualTo(847);
    assertThat(topo.domainCount(TopologyLevel.CLUSTER)).isEqualTo(1);
  }

  @Test
  void shouldSizeDomainsAsInTheData() {
    Topology topo = Topology.of(realTopology());
    int largestAsw = 0;
    for (int d = 0; d < topo.domainCount(TopologyLevel.ASW); d++) {
      largestAsw = Math.max(largestAsw, topo.memberCount(TopologyLevel.ASW, d));
    }
    assertThat(largestAsw).isEqualTo(8);
    int p10 = -1;
    for (int d = 0; d < topo.domainCount(TopologyLevel.PSW); d++) {
      if (topo.domainKey(TopologyLevel.PSW, d).equals("G6/P10")) {
        p10 = d;
      }
    }
    assertThat(topo.memberCount(TopologyLevel.PSW, p10)).isEqualTo(362);
  }

  @Test
  void shouldScaleTo1250NodesWithDistinctSwitchDomains() {
    Topology topo = Topology.of(TopologyCsv.scaleTo(realTopology(), 1250));

    assertThat(topo.size()).isEqualTo(1250);
    assertThat(topo.totalGpus()).isEqualTo(10_000);
    assertThat(topo.domainCount(TopologyLevel.DSW)).isEqualTo(2);
    assertThat(topo.domainCount(TopologyLevel.PSW)).isEqualTo(6);
    // the first 403 hosts of the replica cover 115 of the 119 ASW domains
    assertThat(topo.domainCount(TopologyLevel.ASW)).isEqualTo(119 + 115);
  }

  @Test
  void shouldAcceptColumnsInAnyOrderAndSkipBlankLines() {
    List<Node> nodes = TopologyCsv.parse("ASW,PSW,DSW,ip\nS1,P1,G1,h1\n\nS2,P1,G1,h2\n", "A100", 4);

    assertThat(nodes).extracting(Node::id).containsExactly("h1", "h2");
    assertThat(nodes.get(1).path()).isEqualTo(new SwitchPath("G1", "P1", "S2"));
    assertThat(nodes.get(0).gpuModel()).isEqualTo("A100");
    assertThat(nodes.get(0).gpuCount()).isEqualTo(4);
    assertThat(nodes.get(0).nvlinkIsland()).isEqualTo("h1");
  }

  @Test
  void shouldSkipCommentLinesOfTheTopologyTable() {
    List<Node> nodes = TopologyCsv.parse("# exported from the fabric manager\n\n"
        + " ip , DSW, PSW, ASW \n# rack 1\nh1, G1 ,P1,S1\n   # rack 2, moved\nh2,G1,P1,S2\n",
        "H100", 8);

    assertThat(nodes).extracting(Node::id).containsExactly("h1", "h2");
    assertThat(nodes.get(0).path()).isEqualTo(new SwitchPath("G1", "P1", "S1"));
    // the line number counts the skipped lines: it is the line an editor shows
    assertThatThrownBy(() -> TopologyCsv.parse("# hosts\nip,DSW,PSW,ASW\n# rack 1\nh1,G1,,S1\n",
        "H100", 8)).hasMessageContaining("line 4: blank PSW");
    assertThatThrownBy(() -> TopologyCsv.parse("# nothing yet\n\n", "H100", 8))
        .hasMessageContaining("topology CSV is empty");
  }

  @Test
  void shouldReadOptionalAllocatableCpuAndMemoryAndKeepThemWhenScaling() {
    List<Node> nodes = TopologyCsv.parse("ip,DSW,PSW,ASW,cpuMillis,memoryBytes\n"
        + "h1,G1,P1,S1,96000,1099511627776\nh2,G1,P1,S1,,\n", "H100", 8);

    assertThat(nodes.get(0).allocatable())
        .isEqualTo(io.tideline.core.model.Resources.of(96_000, 1L << 40));
    assertThat(nodes.get(1).allocatable()).isEqualTo(io.tideline.core.model.Resources.NONE);
    assertThat(TopologyCsv.scaleTo(nodes, 3).get(2).allocatable())
        .isEqualTo(nodes.get(0).allocatable());
    assertThatThrownBy(() -> TopologyCsv.parse("ip,DSW,PSW,ASW,cpuMillis\nh1,G1,P1,S1,-4\n",
        "H100", 8)).hasMessageContaining("line 2: cpuMillis must be a whole number >= 0, got -4");
  }

  @Test
  void shouldRejectAMissingColumnADuplicateHostAndABlankSwitch() {
    assertThatThrownBy(() -> TopologyCsv.parse("ip,DSW,PSW\nh1,G1,P1\n", "H100", 8))
        .hasMessageContaining("lacks column asw");
    assertThatThrownBy(() -> TopologyCsv.parse("ip,DSW,PSW,ASW\nh1,G1,P1,S1\nh1,G1,P1,S2\n",
        "H100", 8)).hasMessageContaining("line 3: duplicate host h1");
    assertThatThrownBy(() -> TopologyCsv.parse("ip,DSW,PSW,ASW\nh1,G1,,S1\n", "H100", 8))
        .hasMessageContaining("line 2: blank PSW");
  }
}
