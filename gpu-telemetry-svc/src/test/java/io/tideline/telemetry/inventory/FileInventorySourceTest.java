package io.tideline.telemetry.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tideline.core.model.Resources;
import io.tideline.events.GpuInfo;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeInventory;
import io.tideline.telemetry.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.SortedMap;
import java.util.stream.Collectors;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The inventory of the real 847-host Lingjun topology. */
class FileInventorySourceTest {

  static final FileInventorySource.GpuDefaults H100 =
      new FileInventorySource.GpuDefaults("NVIDIA H100 80GB HBM3", 8, 81559, 1);
  static final String FIRST = "0c9d9de1b19e7f39b08f49ddfa26744ae26d3adf8bd59af1b16e203b6fa5fe4b";
  static final String SECOND = "525c32e31f7143b79af15f2bf2ec59f53aa1eae7ea72a4a1e41696912ef8cdda";
  static final String FOURTH = "e3038539b9fc41eb81700d2bef4d67a017cb55c2bd21d534b31d429f95938fcc";

  static SortedMap<String, NodeState> lingjun(List<String> drain) throws Exception {
    return new FileInventorySource("classpath:" + Fixtures.TOPOLOGY, "classpath:" + Fixtures.NODE_GPUS,
        H100, drain).snapshot();
  }

  @Test
  void shouldFindTheSwitchDomainsOfThe847HostTopology() throws Exception {
    SortedMap<String, NodeState> nodes = lingjun(List.of());

    assertThat(nodes).hasSize(847);
    assertThat(nodes.values().stream().map(NodeState::coreSwitch).distinct()).containsExactly("G6");
    assertThat(nodes.values().stream().map(NodeState::aggregationSwitch).distinct().sorted())
        .containsExactly("G6/P10", "G6/P12", "G6/P8");
    // ASW names repeat under every PSW: 48 names, 119 distinct access switches.
    assertThat(nodes.values().stream().map(NodeState::accessSwitch).distinct()).hasSize(119);
    assertThat(nodes.values().stream().map(n -> n.accessSwitch().substring(n.accessSwitch()
        .lastIndexOf('/') + 1)).distinct()).hasSize(48);
    // No access switch holds more than 8 hosts (one rack).
    assertThat(nodes.values().stream().collect(Collectors.groupingBy(NodeState::accessSwitch,
        Collectors.counting())).values()).allSatisfy(c -> assertThat(c).isLessThanOrEqualTo(8));
    assertThat(nodes.values().stream().filter(n -> n.aggregationSwitch().equals("G6/P10"))).hasSize(362);
  }

  @Test
  void shouldPlaceKnownHostsAndApplyTheirGpuDetails() throws Exception {
    SortedMap<String, NodeState> nodes = lingjun(List.of());

    NodeState first = nodes.get(FIRST);
    assertThat(first.accessSwitch()).isEqualTo("G6/P10/S14");
    assertThat(first.aggregationSwitch()).isEqualTo("G6/P10");
    assertThat(first.gpuModel()).isEqualTo("NVIDIA A800-SXM4-80GB");
    assertThat(first.gpuCount()).isEqualTo(8);
    assertThat(first.nvlinkIslands()).isEqualTo(2);
    assertThat(nodes.get(SECOND).accessSwitch()).isEqualTo("G6/P12/S2");
    assertThat(nodes.get(SECOND).gpuModel()).isEqualTo("NVIDIA L4");
    NodeState fourth = nodes.get(FOURTH);
    assertThat(fourth.accessSwitch()).isEqualTo("G6/P10/S6");
    assertThat(fourth.gpuModel()).isEqualTo("NVIDIA H100 80GB HBM3");
    assertThat(fourth.gpuMemoryMiB()).isEqualTo(81559);
    assertThat(fourth.drained()).isFalse();
  }

  @Test
  void shouldWriteNvlinkIslandsAndTheSwitchPathIntoTheEvent() throws Exception {
    NodeState first = lingjun(List.of()).get(FIRST);

    NodeInventory e = InventoryPublisher.toAvro("lab",
        new InventoryDiff.Change(NodeChange.JOINED, first), Instant.parse("2026-11-02T09:00:00Z"));

    assertThat(e.getGpus()).extracting(GpuInfo::getNvlinkIsland).containsExactly(0, 0, 0, 0, 1, 1, 1, 1);
    assertThat(e.getSwitchPath().getAccessSwitch()).isEqualTo("G6/P10/S14");
    assertThat(e.getSwitchPath().getCoreSwitch()).isEqualTo("G6");
    assertThat(e.getGpuCount()).isEqualTo(8);
    assertThat(e.getChange()).isEqualTo(NodeChange.JOINED);
  }

  @Test
  void shouldReportHostsOnTheDrainListAsDrained() throws Exception {
    assertThat(lingjun(List.of(FOURTH)).get(FOURTH).drained()).isTrue();
  }

  /** What {@code snapshot()} throws for the topology file {@code topo.csv} holding {@code csv}. */
  static AbstractThrowableAssert<?, ? extends Throwable> refusal(Path dir, String csv)
      throws IOException {
    Path topo = dir.resolve("topo.csv");
    Files.writeString(topo, csv);
    return assertThatThrownBy(() -> new FileInventorySource(topo.toString(), null, H100, List.of())
        .snapshot()).isInstanceOf(IOException.class);
  }

  @Test
  void shouldRefuseATopologyFileWithoutTheExpectedColumns(@TempDir Path dir) throws Exception {
    refusal(dir, "host,switch\nh1,s1\n")
        .hasMessageContaining("topo.csv: topology CSV header lacks column ip");
  }

  @Test
  void shouldSkipCommentAndBlankLinesAndGiveUnlistedHostsTheDefaults(@TempDir Path dir)
      throws Exception {
    Path topo = dir.resolve("topo.csv");
    Files.writeString(topo, "# rack export, 2026-11-02\n\nip,DSW,PSW,ASW\n# rack 1\n"
        + " h1 , G1 , P1 , S1 \n\nh2,G1,P1,S2\n");
    Path gpus = dir.resolve("gpus.csv");
    Files.writeString(gpus, "# the odd one\nhost,gpuModel,gpuCount,gpuMemoryMiB,nvlinkIslands\n"
        + "h2,NVIDIA L4,1,23034,1\n");
    // defaults of 0 GPUs (every GPU host in the GPU file) are still accepted
    FileInventorySource.GpuDefaults none = new FileInventorySource.GpuDefaults("none", 0, 0, 1);

    SortedMap<String, NodeState> nodes =
        new FileInventorySource(topo.toString(), gpus.toString(), none, List.of()).snapshot();

    assertThat(nodes.keySet()).containsExactly("h1", "h2");
    assertThat(nodes.get("h1").accessSwitch()).isEqualTo("G1/P1/S1");
    assertThat(nodes.get("h1").gpuCount()).isZero();
    assertThat(nodes.get("h1").gpuModel()).isEqualTo("none");
    assertThat(nodes.get("h2").gpuModel()).isEqualTo("NVIDIA L4");
    assertThat(nodes.get("h2").gpuCount()).isEqualTo(1);
  }

  @Test
  void shouldRefuseAShortRowAHostListedTwiceOrABlankSwitchNamingTheFileAndLine(@TempDir Path dir)
      throws Exception {
    refusal(dir, "# hosts\nip,DSW,PSW,ASW\nh1,G1,P1,S1\nh2,G1,P1\n")
        .hasMessageContaining("topo.csv: line 4: expected 4 fields, got 3");
    // the core's rules (TopologyCsv): the last row used to win, and "G1//S1" was a switch
    refusal(dir, "ip,DSW,PSW,ASW\nh1,G1,P1,S1\nh1,G1,P1,S2\n")
        .hasMessageContaining("topo.csv: line 3: duplicate host h1");
    refusal(dir, "ip,DSW,PSW,ASW\nh1,G1,,S1\n").hasMessageContaining("topo.csv: line 2: blank PSW");
  }

  @Test
  void shouldReadEachHostsAllocatableCpuAndMemoryFromOptionalColumns(@TempDir Path dir) throws Exception {
    Path topo = dir.resolve("topo.csv");
    Files.writeString(topo, "ip,DSW,PSW,ASW,cpuMillis,memoryBytes\n"
        + "h1,G1,P1,S1,96000,1099511627776\n"
        + "h2,G1,P1,S1,,\n");

    SortedMap<String, NodeState> nodes =
        new FileInventorySource(topo.toString(), null, H100, List.of()).snapshot();

    assertThat(nodes.get("h1").allocatable()).isEqualTo(Resources.of(96_000, 1L << 40));
    assertThat(nodes.get("h2").allocatable()).isEqualTo(Resources.NONE);
    NodeInventory e = InventoryPublisher.toAvro("lab",
        new InventoryDiff.Change(NodeChange.JOINED, nodes.get("h1")), Instant.parse("2026-11-02T09:00:00Z"));
    assertThat(e.getAllocatable().getCpuMillis()).isEqualTo(96_000);
    assertThat(e.getAllocatable().getMemoryBytes()).isEqualTo(1L << 40);
  }

  @Test
  void shouldLeaveTheAllocatableOfATopologyWithoutResourceColumnsUndeclared() throws Exception {
    NodeInventory e = InventoryPublisher.toAvro("lab",
        new InventoryDiff.Change(NodeChange.JOINED, lingjun(List.of()).get(FIRST)),
        Instant.parse("2026-11-02T09:00:00Z"));

    assertThat(e.getAllocatable()).isNull();
  }

  @Test
  void shouldRefuseANegativeCpuNamingTheFileAndLine(@TempDir Path dir) throws Exception {
    refusal(dir, "ip,DSW,PSW,ASW,cpuMillis\nh1,G1,P1,S1,-5\n")
        .hasMessageContaining("topo.csv: line 2: cpuMillis must be a whole number >= 0, got -5");
  }
}
