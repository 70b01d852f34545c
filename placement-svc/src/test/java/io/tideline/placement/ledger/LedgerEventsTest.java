package io.tideline.placement.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.DemandShape;
import io.tideline.events.FragmentationReport;
import io.tideline.events.FragmentationTrigger;
import io.tideline.events.GpuAssignment;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeFragmentationFigure;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.ResourceQuantities;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.ClusterNodes;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.RegistryFixture;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenarios of issue #6's remainder through the placement topology (explicit event times, a real
 * schema registry): fragmentation as events, a node that LEFT, the F3 fallbacks (early release and
 * over-issue) and GPU model names as the inventory reports them.
 */
class LedgerEventsTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");
  static final String H100 = "NVIDIA H100 80GB HBM3";
  @RegisterExtension static final RegistryFixture registry = new RegistryFixture();
  LedgerDriver d;

  @BeforeEach
  void driver() {
    d = new LedgerDriver(registry.url());
  }

  @AfterEach
  void close() {
    d.close();
  }

  static Instant t(int seconds) {
    return T0.plusSeconds(seconds);
  }

  static JobSubmitted gang(String id, int gpus, int nodes, Instant at) {
    return JobSubmissions.training(id).gpus(gpus).gang(gpus, nodes).at(at).build();
  }

  static List<PlacementDecision> of(List<PlacementDecision> ds, String job) {
    return ds.stream().filter(x -> x.getJobId().equals(job)).toList();
  }

  /** ADR 0030: pods without GPUs are placed on GPU nodes for their CPU and memory. */
  @Nested
  class JobsWithoutGpus {

    @Test
    void shouldPlaceTheirPodsWhereCpuHasRoomAndPublishThePodsPerNodeInDecisionAndLedger() {
      for (NodeInventory n : ClusterNodes.joined(LedgerDriver.CLUSTER, 2, T0)) {
        n.setAllocatable(new ResourceQuantities(64_000L, 512L << 30, Map.of()));
        d.send(TopicCatalogue.CLUSTER_INVENTORY, n.getNodeId(), n, T0);
      }
      // four pods of 20 cores: three fit on a 64-core node, the fourth goes to the other
      JobSubmitted etl = JobSubmissions.training("etl").gpus(0).gang(4, 0).at(T0).build();
      etl.getResources().setPerWorker(new ResourceQuantities(20_000L, 8L << 30, Map.of()));
      d.admit(etl, t(1));
      d.tick(t(60));

      PlacementDecision p = of(d.decisions(), "etl").get(0);
      assertThat(p.getOutcome()).isEqualTo(PlacementOutcome.PLACED);
      assertThat(p.getAssignments()).isEmpty();
      assertThat(p.getWorkers()).containsExactlyInAnyOrderEntriesOf(Map.of("n01", 3, "n02", 1));
      assertThat(d.deadLetters(TopicCatalogue.JOBS_SUBMITTED)).isEmpty();
    }
  }

  @Nested
  class FragmentationEvents {

    @Test
    void shouldPublishTheFirstFigureWithNodesAndShapesOnTheFirstTick() {
      d.autoTick = false; // the ticks of this scenario are its own
      d.nodes(2, t(0));
      d.admit(gang("eight", 8, 1, t(1)), t(1));
      d.admit(gang("three", 3, 1, t(2)), t(2));
      d.tick(t(60));

      // demand: one 8-GPU and one 3-GPU shape (weights ½ each); n01 full, n02 has 5 idle:
      // for 8 all 5 are stranded, for 3 one is (5 − 3) → ½·5 + ½·2 = 3.5 stranded of 5 idle.
      assertThat(d.fragmentation()).singleElement().satisfies(r -> {
        assertThat(r.getTrigger()).isEqualTo(FragmentationTrigger.FIRST);
        assertThat(r.getCluster()).isEqualTo(LedgerDriver.CLUSTER);
        assertThat(r.getAt()).isEqualTo(t(60));
        assertThat(r.getIdleGpus()).isEqualTo(5);
        assertThat(r.getStrandedGpus()).isEqualTo(3.5);
        assertThat(r.getIndex()).isEqualTo(0.7);
        assertThat(r.getShapes()).extracting(DemandShape::getGpusPerNode, DemandShape::getJobs)
            .containsExactly(org.assertj.core.groups.Tuple.tuple(3, 1L),
                org.assertj.core.groups.Tuple.tuple(8, 1L));
        assertThat(r.getNodes()).singleElement().satisfies(n -> {
          assertThat(n.getIdleGpus()).isEqualTo(5);
          assertThat(n.getIndex()).isEqualTo(0.7);
        });
        assertThat(r.getLedgerVersion()).isGreaterThan(0);
      });
    }

    @Test
    void shouldStayQuietUntilTheFigureMovesMateriallyOrTheIntervalPasses() {
      d.autoTick = false; // the ticks of this scenario are its own
      d.nodes(2, t(0));
      d.admit(gang("eight", 8, 1, t(1)), t(1));
      d.admit(gang("three", 3, 1, t(2)), t(2));
      d.tick(t(60));
      d.fragmentation();

      d.tick(t(120)); // nothing changed, 1 minute later
      assertThat(d.fragmentation()).isEmpty();

      d.lifecycle("three", io.tideline.events.LifecycleType.COMPLETED, t(130));
      d.tick(t(180)); // n02 wholly idle: nothing stranded any more (0.7 → 0)
      assertThat(d.fragmentation()).singleElement().satisfies(r -> {
        assertThat(r.getTrigger()).isEqualTo(FragmentationTrigger.CHANGED);
        assertThat(r.getIndex()).isEqualTo(0.0);
      });

      d.tick(t(180 + 899));
      assertThat(d.fragmentation()).isEmpty();
      d.tick(t(180 + 900)); // one report interval (15 min) of event time later
      assertThat(d.fragmentation()).singleElement().extracting(FragmentationReport::getTrigger)
          .isEqualTo(FragmentationTrigger.INTERVAL);
    }
  }

  @Nested
  class NodeLeft {

    @Test
    void shouldLoseTheAllocationsOfANodeThatLeftAndRequeueTheirJobs() {
      d.node("n01", "asw1", H100, NodeChange.JOINED, t(0));
      d.node("n02", "asw1", H100, NodeChange.JOINED, t(0));
      d.admit(gang("gang16", 16, 2, t(1)), t(1));
      d.admit(gang("four", 4, 1, t(2)), t(2));
      d.decisions();

      d.node("n02", "asw1", H100, NodeChange.LEFT, t(100));

      List<PlacementDecision> ds = d.decisions();
      // the gang spanned n01 and n02: it loses every GPU (W3), is queued with the reason
      assertThat(of(ds, "gang16")).extracting(PlacementDecision::getOutcome)
          .containsExactly(PlacementOutcome.RELEASED, PlacementOutcome.QUEUED);
      assertThat(of(ds, "gang16").get(0).getTrace()).anySatisfy(e -> {
        assertThat(e.getRule()).isEqualTo("T1 node left");
        assertThat(e.getDetail()).contains("node n02 left the cluster");
      });
      assertThat(of(ds, "gang16").get(1).getTrace()).anySatisfy(e ->
          assertThat(e.getOutcome()).isEqualTo("requeued"));
      // the 4-GPU job waited behind the gang; n01 is free again and it is placed there, while
      // the 16-GPU gang no longer fits the 8 GPUs left
      assertThat(of(ds, "four")).singleElement().satisfies(p -> {
        assertThat(p.getOutcome()).isEqualTo(PlacementOutcome.PLACED);
        assertThat(p.getAssignments()).extracting(GpuAssignment::getNodeId).containsOnly("n01");
      });
      assertThat(of(ds, "gang16")).noneMatch(p -> p.getOutcome() == PlacementOutcome.PLACED);
    }

    @Test
    void shouldNeverPlaceOnANodeThatLeft() {
      d.node("n01", "asw1", H100, NodeChange.JOINED, t(0));
      d.node("n02", "asw1", H100, NodeChange.JOINED, t(0));
      d.node("n02", "asw1", H100, NodeChange.LEFT, t(10));
      d.admit(gang("a", 8, 1, t(20)), t(20));
      d.admit(gang("b", 8, 1, t(21)), t(21));

      List<PlacementDecision> ds = d.decisions();
      assertThat(of(ds, "a")).singleElement().satisfies(p -> {
        assertThat(p.getOutcome()).isEqualTo(PlacementOutcome.PLACED);
        assertThat(p.getAssignments()).extracting(GpuAssignment::getNodeId).containsOnly("n01");
      });
      assertThat(of(ds, "b")).extracting(PlacementDecision::getOutcome)
          .containsExactly(PlacementOutcome.QUEUED);
      d.tick(t(60));
      assertThat(d.fragmentation()).singleElement().satisfies(r ->
          assertThat(r.getNodes()).extracting(NodeFragmentationFigure::getNodeId)
              .doesNotContain("n02"));

      d.node("n02", "asw1", H100, NodeChange.JOINED, t(100)); // it comes back
      assertThat(of(d.decisions(), "b")).singleElement().satisfies(p ->
          assertThat(p.getAssignments()).extracting(GpuAssignment::getNodeId).containsOnly("n02"));
    }
  }

  @Nested
  class ReservationFallbacks {

    JobSubmitted steady(String id, int gpus, Instant at) {
      return JobSubmissions.training(id).gpus(gpus).gang(gpus, 1).preemptible(false).at(at)
          .build();
    }

    @Test
    void shouldGiveEarlyReleasedGpusToAnyoneNotOnlyPreemptibleWork() {
      d.nodes(1, t(0));
      d.reserve("search-api@slot/RESERVE", "search-api", 8, t(5), t(3600), t(5));
      d.admit(steady("steady", 4, t(10)), t(10));
      assertThat(of(d.decisions(), "steady")).extracting(PlacementDecision::getOutcome)
          .containsExactly(PlacementOutcome.QUEUED);

      d.release("search-api", 4, t(3000)); // F3: over-forecast, 4 GPUs given back early

      assertThat(of(d.decisions(), "steady")).singleElement().satisfies(p -> {
        assertThat(p.getOutcome()).isEqualTo(PlacementOutcome.PLACED);
        assertThat(p.getDecidedAt()).isEqualTo(t(3000).plusMillis(1));
      });
      d.admit(steady("more", 1, t(3001)), t(3001)); // the other 4 are still the service's
      assertThat(of(d.decisions(), "more")).extracting(PlacementDecision::getOutcome)
          .containsExactly(PlacementOutcome.QUEUED);
    }

    @Test
    void shouldLetTheServiceDrawOverIssuedGpusFromTheSharedPoolUntilTheyExpire() {
      d.nodes(1, t(0));
      d.reserve("search-api@slot/RESERVE", "search-api", 4, t(5), t(3600), t(5));
      for (int i = 1; i <= 4; i++) {
        d.admit(JobSubmissions.onlineInference("s" + i, "search-api", 1.0).at(t(10 + i))
            .build(), t(10 + i));
      }
      d.decisions();

      d.overIssue("search-api", 2, t(1800), t(100)); // F3: under-forecast, 2 more until t(1800)
      d.admit(steady("steady", 3, t(110)), t(110)); // 4 unreserved − 2 over-issued = 2 left
      d.admit(JobSubmissions.onlineInference("s5", "search-api", 1.0).at(t(111)).build(),
          t(111));
      d.admit(JobSubmissions.onlineInference("s6", "search-api", 1.0).at(t(112)).build(),
          t(112));

      List<PlacementDecision> ds = d.decisions();
      assertThat(of(ds, "steady")).extracting(PlacementDecision::getOutcome)
          .containsExactly(PlacementOutcome.QUEUED);
      assertThat(of(ds, "s5")).extracting(PlacementDecision::getOutcome)
          .containsExactly(PlacementOutcome.PLACED);
      assertThat(of(ds, "s6")).extracting(PlacementDecision::getOutcome)
          .containsExactly(PlacementOutcome.PLACED);

      d.lifecycle("s5", io.tideline.events.LifecycleType.COMPLETED, t(1900));
      // the over-issue ended at t(1800): s5's GPU and the 2 unreserved are free for anyone
      assertThat(of(d.decisions(), "steady")).extracting(PlacementDecision::getOutcome)
          .contains(PlacementOutcome.PLACED);
    }
  }

  @Nested
  class GpuModelNames {

    @Test
    void shouldPlaceAJobAskingH100OnNodesReportingTheNvidiaProductName() {
      d.node("n01", "asw1", H100, NodeChange.JOINED, t(0));
      d.admit(JobSubmissions.training("h").gpus(8).gang(8, 1).models("H100").at(t(1)).build(),
          t(1));
      d.admit(JobSubmissions.training("b").gpus(1).gang(1, 1).models("B200").at(t(2)).build(),
          t(2));

      List<PlacementDecision> ds = d.decisions();
      assertThat(of(ds, "h")).singleElement().extracting(PlacementDecision::getOutcome)
          .isEqualTo(PlacementOutcome.PLACED);
      assertThat(of(ds, "b")).singleElement().satisfies(p -> {
        assertThat(p.getOutcome()).isEqualTo(PlacementOutcome.QUEUED);
        assertThat(p.getTrace()).anySatisfy(e -> assertThat(e.getDetail())
            .isEqualTo("allowed [B200] but the fleet has [" + H100 + "]"));
      });
    }
  }
}
