package io.tideline.simulator.placementstudy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.Node;
import io.tideline.core.cluster.NodeLedger;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Scenarios of the placement study (issue #20 point 3, ADR 0037) on the shipped synthetic CSV
 * pair ({@code simulator/data/placement-study}, {@link SyntheticTrace} seed 2026).
 */
class PlacementStudyTest {

  static final Path DATA = Path.of("data/placement-study");
  static final List<StudyNode> NODES = TraceCsv.readNodes(DATA.resolve("nodes.csv"));
  static final List<StudyPod> PODS = TraceCsv.readPods(DATA.resolve("pods.csv"));
  static final StudyConfig ONE_SEED = StudyConfig.DEFAULTS.withSeeds(42, 42);

  static final String POD_HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos\n";

  @Test
  void shouldShipTheCsvPairTheSeededGeneratorWrites() throws Exception {
    assertThat(Files.readString(DATA.resolve("nodes.csv"))).isEqualTo(SyntheticTrace.nodesCsv(2026));
    assertThat(Files.readString(DATA.resolve("pods.csv"))).isEqualTo(SyntheticTrace.podsCsv(2026));
    assertThat(NODES).hasSize(SyntheticTrace.NODES);
    assertThat(PODS).hasSize(SyntheticTrace.PODS);
    assertThat(PODS).anySatisfy(p -> assertThat(p.fractional()).isTrue())
        .anySatisfy(p -> assertThat(p.numGpu()).isZero())
        .anySatisfy(p -> assertThat(p.models()).hasSize(2));
  }

  @Test
  void shouldNameFileAndLineOfAValueThatIsNotANumber() {
    String csv = POD_HEADER + "p1,1000,1024,1,1000,,BE\np2,lots,1024,1,1000,,BE\n";

    assertThatThrownBy(() -> TraceCsv.readPods("pods.csv", new StringReader(csv)))
        .isInstanceOf(TraceCsvException.class)
        .hasMessage("pods.csv:3: cpu_milli 'lots' is not a whole number");
  }

  @Test
  void shouldNameAMissingColumnAndAShortRow() {
    assertThatThrownBy(() -> TraceCsv.readNodes("nodes.csv",
        new StringReader("sn,cpu_milli,gpu,model\nn1,1000,8,A100\n")))
        .hasMessageStartingWith("nodes.csv:1: missing column 'memory_mib'");
    assertThatThrownBy(() -> TraceCsv.readNodes("nodes.csv",
        new StringReader("sn,cpu_milli,memory_mib,gpu,model\nn1,1000,8\n")))
        .hasMessage("nodes.csv:2: 3 fields, the header has 5");
  }

  @Test
  void shouldRefuseAFractionalShareOnSeveralGpus() {
    String csv = POD_HEADER + "p1,1000,1024,2,500,,BE\n";

    assertThatThrownBy(() -> TraceCsv.readPods("pods.csv", new StringReader(csv)))
        .hasMessageStartingWith("pods.csv:2: pod p1: gpu_milli 500 with num_gpu 2");
  }

  @Test
  void shouldInflateArrivalToOneHundredThirtyPercentOfCapacityAndStopThere() {
    PlacementStudy study = new PlacementStudy(NODES, PODS, ONE_SEED);

    List<StudyPod> arrivals = study.arrivals(42);
    double total = arrivals.stream().mapToDouble(StudyPod::gpuDemand).sum();
    double last = arrivals.get(arrivals.size() - 1).gpuDemand();

    assertThat(total).isGreaterThanOrEqualTo(1.3 * study.capacity());
    assertThat(total - last).isLessThan(1.3 * study.capacity());
    assertThat(arrivals.size()).isGreaterThan(PODS.size());
    assertThat(arrivals).anySatisfy(p -> assertThat(p.name()).startsWith("inflated-"));
  }

  @Test
  void shouldNeverOvercommitAGpuCpuOrMemoryUnderAnyPolicy() {
    PlacementStudy study = new PlacementStudy(NODES, PODS, ONE_SEED);

    for (StudyPolicy policy : PlacementStudyMain.policies(PODS)) {
      PlacementStudy.SeedRun run = study.run(policy, 42);
      ClusterSnapshot s = run.finalCluster();
      assertThat(run.placed()).as(policy.name()).isLessThan(run.arrivals());
      for (int n = 0; n < s.topology().size(); n++) {
        Node node = s.topology().node(n);
        NodeLedger l = s.ledger(n);
        assertThat(l.allocated().cpuMillis()).as("%s cpu on %s", policy.name(), node.id())
            .isLessThanOrEqualTo(node.allocatable().cpuMillis());
        assertThat(l.allocated().memoryBytes()).as("%s memory on %s", policy.name(), node.id())
            .isLessThanOrEqualTo(node.allocatable().memoryBytes());
        for (int g = 0; g < l.gpuCount(); g++) {
          assertThat(l.used(g)).isLessThanOrEqualTo(1.0 + ClusterSnapshot.SHARE_EPSILON);
        }
      }
      assertThat(run.allocationAt(130, ONE_SEED)).isLessThanOrEqualTo(1.0);
    }
  }

  @Test
  void shouldRepeatEveryFigureForTheSameSeedAndDifferForAnother() {
    PlacementStudy study = new PlacementStudy(NODES, PODS, ONE_SEED);
    StudyPolicy tideline = PlacementStudyMain.policies(PODS).get(1);

    PlacementStudy.SeedRun first = study.run(tideline, 42);
    PlacementStudy.SeedRun again = study.run(tideline, 42);
    PlacementStudy.SeedRun other = study.run(tideline, 43);

    assertThat(again.curve()).containsExactly(first.curve());
    assertThat(again.finalCluster().allocations()).isEqualTo(first.finalCluster().allocations());
    assertThat(other.curve()).isNotEqualTo(first.curve());
  }

  @Test
  void shouldPrintEveryPolicyAndEveryArrivalStep() {
    StudyResult r = new PlacementStudy(NODES, PODS, ONE_SEED)
        .run(PlacementStudyMain.policies(PODS));

    assertThat(r.markdown()).contains("| best fit |", "| Tideline best-fit rule |",
        "| Tideline fragmentation rule |", "| 130% |");
    assertThat(r.csv().lines()).hasSize(1 + 3 * 13);
  }
}
