package io.tideline.core.placement;

import io.tideline.core.trace.TraceEntry;
import static io.tideline.core.cluster.TestCluster.cluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.TestCluster;
import io.tideline.core.cluster.TestJobs;
import io.tideline.core.cluster.TopologyLevel;
import io.tideline.core.cluster.GpuModelNames;
import io.tideline.core.model.JobRequest;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class PlacerTest {

  static final Instant NOW = Instant.parse("2026-11-02T14:00:00Z");
  final Placer placer = new Placer(PlacementConfig.DEFAULTS);

  PlacementDecision place(ClusterSnapshot snap, TestJobs job) {
    return placer.decide(NOW, snap, job.build());
  }

  /** Two PSWs; P1 has access switches S1 (n1, n2) and S2 (n3); P2 has S3 (n4). */
  static TestCluster twoPods() {
    return cluster()
        .node("n1", "D1", "P1", "S1").node("n2", "D1", "P1", "S1")
        .node("n3", "D1", "P1", "S2")
        .node("n4", "D1", "P2", "S3");
  }

  @Nested
  class GangAllOrNothing {

    @Test
    void shouldPlaceNothingWhenTheWholeGangDoesNotFit() {
      ClusterSnapshot snap = cluster().node("n1", "D1", "P1", "S1").node("n2", "D1", "P1", "S1")
          .runningRange("a", "n1", 0, 5).runningRange("b", "n2", 0, 5).build();

      PlacementDecision d = place(snap, TestJobs.training("gang", 8));

      assertThat(d.placed()).isFalse();
      assertThat(d.reason()).isEqualTo(UnplaceableReason.INSUFFICIENT_CAPACITY);
      assertThat(d.assignments()).isEmpty();
      assertThat(d.trace()).anySatisfy(t -> assertThat(t.detail())
          .isEqualTo("needs 8 idle GPUs, 6 eligible"));
    }

    @Test
    void shouldPlaceEveryGpuOfAGangThatJustFits() {
      ClusterSnapshot snap = cluster().node("n1", "D1", "P1", "S1").node("n2", "D1", "P1", "S1")
          .runningRange("a", "n1", 0, 5).runningRange("b", "n2", 0, 5).build();

      PlacementDecision d = place(snap, TestJobs.training("gang", 6));

      assertThat(d.placed()).isTrue();
      assertThat(d.assignments()).hasSize(6).allSatisfy(a -> assertThat(a.share()).isEqualTo(1.0));
      assertThat(d.nodeIds()).containsExactly("n1", "n2");
      assertThat(d.level()).isEqualTo(TopologyLevel.ASW);
      assertThat(d.crossDomain()).isFalse();
      assertThat(d.ledgerVersion()).isEqualTo(snap.version());
    }

    @Test
    void shouldKeepAWorkerOnOneNodeAndReportFragmentation() {
      // 4 + 4 idle GPUs: enough in total, but a single 8-GPU worker needs one node
      ClusterSnapshot snap = cluster().node("n1", "D1", "P1", "S1").node("n2", "D1", "P1", "S1")
          .runningRange("a", "n1", 0, 4).runningRange("b", "n2", 0, 4).build();

      PlacementDecision single = place(snap, TestJobs.training("one-worker", 8).workers(1));
      PlacementDecision eight = place(snap, TestJobs.training("eight-workers", 8).workers(8));

      assertThat(single.placed()).isFalse();
      assertThat(single.reason()).isEqualTo(UnplaceableReason.FRAGMENTED);
      assertThat(eight.placed()).isTrue();
      assertThat(eight.nodeIds()).containsExactly("n1", "n2");
    }

    @Test
    void shouldPlaceTwoEightGpuWorkersOnTwoWholeNodes() {
      ClusterSnapshot snap = twoPods().runningRange("a", "n1", 0, 1).build();

      PlacementDecision d = place(snap, TestJobs.training("g16", 16).workers(2));

      assertThat(d.placed()).isTrue();
      assertThat(d.nodeIds()).containsExactly("n2", "n3");
      assertThat(d.level()).isEqualTo(TopologyLevel.PSW);
    }

    @Test
    void shouldRefuseAWorkerLargerThanAnyNode() {
      PlacementDecision d = place(twoPods().build(), TestJobs.training("big", 16).workers(1));

      assertThat(d.reason()).isEqualTo(UnplaceableReason.INVALID_SHAPE);
      assertThat(d.trace()).anySatisfy(t -> assertThat(t.detail())
          .startsWith("one worker needs 16 GPUs on one node, the largest node has 8"));
    }

    @Test
    void shouldSpreadEvenlyOverExactlyTheRequestedNodes() {
      ClusterSnapshot snap = twoPods().build();

      PlacementDecision d = place(snap, TestJobs.training("spread", 8).nodes(3));

      assertThat(d.placed()).isTrue();
      assertThat(d.nodeIds()).hasSize(3);
      assertThat(d.assignments().stream().collect(java.util.stream.Collectors.groupingBy(
          GpuAssignment::nodeId, java.util.stream.Collectors.counting())).values())
          .containsExactlyInAnyOrder(3L, 3L, 2L);
      assertThat(d.level()).isEqualTo(TopologyLevel.PSW);
    }

    @Test
    void shouldRefuseAnExactSpreadWhenTooFewNodesHaveRoom() {
      ClusterSnapshot snap = cluster().node("n1", "D1", "P1", "S1").node("n2", "D1", "P1", "S1")
          .runningRange("a", "n2", 0, 7).build();

      PlacementDecision d = place(snap, TestJobs.training("spread", 4).nodes(2));

      assertThat(d.reason()).isEqualTo(UnplaceableReason.FRAGMENTED);
    }
  }

  @Nested
  class DomainPreference {

    @Test
    void shouldPreferAWholeNodeOverTwoHalfNodesInTheSameSwitch() {
      ClusterSnapshot snap = twoPods()
          .runningRange("a", "n1", 0, 4).runningRange("b", "n2", 0, 4).build();

      PlacementDecision d = place(snap, TestJobs.training("g8", 8));

      assertThat(d.level()).isEqualTo(TopologyLevel.NODE);
      assertThat(d.nodeIds()).containsExactly("n3");
      assertThat(d.crossDomain()).isFalse();
    }

    @Test
    void shouldStayInOneAccessSwitchWhenItFitsWithoutPenalty() {
      ClusterSnapshot snap = twoPods()
          .runningRange("a", "n1", 0, 2).runningRange("b", "n2", 0, 2).build();

      PlacementDecision d = place(snap, TestJobs.training("g12", 12));

      assertThat(d.level()).isEqualTo(TopologyLevel.ASW);
      assertThat(d.nodeIds()).containsExactly("n1", "n2");
      assertThat(d.score()).isCloseTo(1.0, within(1e-9));
    }

    @Test
    void shouldFallBackToTheAggregationSwitchAndChargeTheBandwidthPenalty() {
      ClusterSnapshot snap = twoPods().runningRange("a", "n1", 0, 4).build();

      PlacementDecision d = place(snap, TestJobs.training("g16", 16));

      assertThat(d.placed()).isTrue();
      assertThat(d.level()).isEqualTo(TopologyLevel.PSW);
      assertThat(d.crossDomain()).isTrue();
      // the whole ASW S1 (12 GPUs) plus the tightest rest: 4 from n3 — every node full after
      assertThat(d.nodeIds()).containsExactly("n1", "n2", "n3");
      // fit: n1 and n2 full (1.0), n3 half full (0.5) → 2.5 / 3; × (1 - 0.4) for one tier
      assertThat(d.score()).isCloseTo(2.5 / 3 * 0.6, within(1e-9));
      assertThat(d.trace()).anySatisfy(t -> assertThat(t.rule())
          .isEqualTo("T1 cross-switch penalty"));
    }

    @Test
    void shouldChargeTheConfiguredPenaltyPerSwitchTier() {
      ClusterSnapshot snap = twoPods().build();
      Placer mild = new Placer(new PlacementConfig(0.3));

      PlacementDecision d = mild.decide(NOW, snap, TestJobs.training("g32", 32).build());

      assertThat(d.level()).isEqualTo(TopologyLevel.DSW);
      assertThat(d.score()).isCloseTo(0.7 * 0.7, within(1e-9));
    }

    @Test
    void shouldChooseTheFullestNodeThatStillFits() {
      ClusterSnapshot snap = twoPods()
          .runningRange("a", "n1", 0, 3).runningRange("b", "n2", 0, 4).build();

      assertThat(place(snap, TestJobs.training("g4", 4).workers(1)).nodeIds())
          .containsExactly("n2");
      assertThat(place(snap, TestJobs.training("g5", 5).workers(1)).nodeIds())
          .containsExactly("n1");
    }

    @Test
    void shouldPreferAnNvlinkIslandOverTheAccessSwitch() {
      // r1 and r2 share one NVLink fabric; n3 is a plain HGX node under the same switch
      ClusterSnapshot snap = cluster()
          .node("n0", "D1", "P1", "S1")
          .nodeInIsland("r1", "nvl-A", "D1", "P1", "S1").nodeInIsland("r2", "nvl-A", "D1", "P1", "S1")
          .node("n3", "D1", "P1", "S1")
          .runningRange("a", "r1", 0, 2).runningRange("b", "r2", 0, 2)
          .runningRange("c", "n0", 0, 4).runningRange("d", "n3", 0, 4).build();

      PlacementDecision d = place(snap, TestJobs.training("g12", 12));

      assertThat(d.level()).isEqualTo(TopologyLevel.NVLINK_ISLAND);
      assertThat(d.nodeIds()).containsExactly("r1", "r2");
    }

    @Test
    void shouldExplainEveryLevelTriedInTheTrace() {
      ClusterSnapshot snap = twoPods().runningRange("a", "n1", 0, 4).build();

      PlacementDecision d = place(snap, TestJobs.training("g16", 16));

      assertThat(d.trace()).extracting(TraceEntry::toString).containsSubsequence(
          "g16 | W3 gang all-or-nothing | shape | 16 GPUs as 16 worker(s) of 1 GPU(s), a worker"
              + " never spans nodes",
          "g16 | T1 smallest domain | no fit | no NODE domain has 16 usable GPUs",
          "g16 | T1 smallest domain | no fit | no ASW domain has 16 usable GPUs",
          "D1/P1 | T1 smallest domain | chosen | PSW domain with 20 usable GPUs (best fit for 16)",
          "g16 | T1 cross-switch penalty | charged | spans PSW: 1 switch tier(s) × 0.40 slowdown"
              + " → score × 0.60");
    }

    @Test
    void shouldSkipCordonedNodes() {
      ClusterSnapshot snap = twoPods().build().withCordoned(Set.of("n1", "n2", "n3"));

      assertThat(place(snap, TestJobs.training("g8", 8)).nodeIds()).containsExactly("n4");
    }
  }

  @Nested
  class GpuModels {

    ClusterSnapshot mixed() {
      return cluster()
          .model("A100").node("a1", "D1", "P1", "S1")
          .model("H100").node("h1", "D1", "P1", "S1").node("h2", "D1", "P1", "S1")
          .runningRange("x", "h1", 0, 4).build();
    }

    @Test
    void shouldPlaceOnlyOnAnAllowedModel() {
      assertThat(place(mixed(), TestJobs.training("j", 8).workers(1).models("H100")).nodeIds())
          .containsExactly("h2");
      assertThat(place(mixed(), TestJobs.training("j", 8).workers(1).models("A100")).nodeIds())
          .containsExactly("a1");
    }

    @Test
    void shouldBestFitAcrossSeveralAllowedModels() {
      assertThat(place(mixed(), TestJobs.training("j", 4).workers(1).models("A100", "H100"))
          .nodeIds()).containsExactly("h1");
    }

    @Test
    void shouldNotSpreadAGangOntoAForbiddenModel() {
      PlacementDecision d = place(mixed(), TestJobs.training("j", 16).models("A100"));

      assertThat(d.reason()).isEqualTo(UnplaceableReason.INSUFFICIENT_CAPACITY);
    }

    @Test
    void shouldReportAModelTheFleetDoesNotHave() {
      PlacementDecision d = place(mixed(), TestJobs.training("j", 1).models("B200"));

      assertThat(d.reason()).isEqualTo(UnplaceableReason.NO_MATCHING_GPU_MODEL);
      assertThat(d.trace().get(d.trace().size() - 1).detail())
          .isEqualTo("allowed [B200] but the fleet has [A100, H100]");
    }

    ClusterSnapshot asReported() {
      return cluster()
          .model("NVIDIA A100-SXM4-80GB").node("a1", "D1", "P1", "S1")
          .model("NVIDIA H100 80GB HBM3").node("h1", "D1", "P1", "S1")
          .model("NVIDIA H100 PCIe").node("p1", "D1", "P1", "S1").build();
    }

    @Test
    void shouldMatchAFamilyNameAgainstTheProductNameTheInventoryReports() {
      PlacementDecision d = place(asReported(), TestJobs.training("j", 8).workers(1)
          .models("H100"));

      assertThat(d.placed()).isTrue();
      assertThat(d.nodeIds()).containsAnyOf("h1", "p1");
      assertThat(d.trace()).anySatisfy(t -> assertThat(t.detail())
          .isEqualTo("allowed [H100] → 2 of 3 fleet models"));
    }

    @Test
    void shouldKeepAnExactProductNameExact() {
      assertThat(place(asReported(), TestJobs.training("j", 8).workers(1)
          .models("nvidia  h100 pcie")).nodeIds()).containsExactly("p1");
      assertThat(place(asReported(), TestJobs.training("j", 8).workers(1)
          .models("H200")).reason()).isEqualTo(UnplaceableReason.NO_MATCHING_GPU_MODEL);
    }

    @Test
    void shouldUseConfiguredAliasesForNamesTheBuiltInRuleDoesNotCover() {
      Placer withAliases = new Placer(new PlacementConfig(0.4,
          GpuModelNames.parse(List.of("Tesla-A100=A100"))));

      assertThat(withAliases.decide(NOW, asReported(), TestJobs.training("j", 8)
          .workers(1).models("tesla-a100").build()).nodeIds()).containsExactly("a1");
      assertThat(place(asReported(), TestJobs.training("j", 8).workers(1).models("Tesla-A100"))
          .reason()).isEqualTo(UnplaceableReason.NO_MATCHING_GPU_MODEL);
      assertThat(place(asReported(), TestJobs.training("j", 8).workers(1).models("A100"))
          .nodeIds()).containsExactly("a1");
    }
  }

  @Nested
  class FractionalPacking {

    @Test
    void shouldPackOntoAPartlyUsedGpuBeforeBreakingAnIdleOne() {
      ClusterSnapshot snap = cluster().node("n1", "D1", "P1", "S1").node("n2", "D1", "P1", "S1")
          .runningRange("t", "n1", 0, 6).instance("i1", "n2", 3, 0.5).build();

      PlacementDecision d = place(snap, TestJobs.instance("i2", 0.25));

      assertThat(d.assignments()).containsExactly(new GpuAssignment("n2", 3, 0.25));
      assertThat(d.level()).isEqualTo(TopologyLevel.NODE);
      assertThat(d.score()).isCloseTo(0.75, within(1e-9));
    }

    @Test
    void shouldChooseTheTightestSharedGpu() {
      ClusterSnapshot snap = cluster().node("n1", "D1", "P1", "S1")
          .instance("i1", "n1", 0, 0.25).instance("i2", "n1", 1, 0.5).build();

      assertThat(place(snap, TestJobs.instance("i3", 0.5)).assignments())
          .containsExactly(new GpuAssignment("n1", 1, 0.5));
      assertThat(place(snap, TestJobs.instance("i3", 0.75)).assignments())
          .containsExactly(new GpuAssignment("n1", 0, 0.75));
    }

    @Test
    void shouldBreakAnIdleGpuOnTheFullestNodeWhenNoSharedGpuFits() {
      ClusterSnapshot snap = cluster().node("n1", "D1", "P1", "S1").node("n2", "D1", "P1", "S1")
          .instance("i1", "n1", 0, 0.5).runningRange("t", "n2", 0, 5).build();

      PlacementDecision d = place(snap, TestJobs.instance("i2", 0.75));

      assertThat(d.assignments()).containsExactly(new GpuAssignment("n2", 5, 0.75));
      assertThat(d.trace()).anySatisfy(t -> assertThat(t.outcome()).isEqualTo("idle GPU"));
    }

    @Test
    void shouldFillAGpuExactlyWithTenthShares() {
      TestCluster c = cluster().node("n1", "D1", "P1", "S1");
      for (int i = 0; i < 9; i++) {
        c.instance("i" + i, "n1", 0, 0.1);
      }
      PlacementDecision d = place(c.build(), TestJobs.instance("last", 0.1));

      assertThat(d.assignments()).containsExactly(new GpuAssignment("n1", 0, 0.1));
    }
  }

  @Nested
  class Reservations {

    static final Instant STARTS = Instant.parse("2026-11-02T14:15:00Z");

    ClusterSnapshot reservedNode() {
      return cluster().node("n1", "D1", "P1", "S1").node("n2", "D1", "P1", "S1")
          .runningRange("x", "n2", 0, 8)
          .reserve("r-ranker", "ranker", STARTS, "n1", 0, 1, 2, 3, 4, 5, 6, 7).build();
    }

    @Test
    void shouldLendReservedGpusToPreemptibleWorkBeforeTheReservationStarts() {
      JobRequest job = TestJobs.training("t", 8).preemptible(true).build();

      PlacementDecision d = placer.decide(STARTS.minusSeconds(1), reservedNode(), job);

      assertThat(d.placed()).isTrue();
      assertThat(d.nodeIds()).containsExactly("n1");
    }

    @Test
    void shouldKeepNonPreemptibleWorkOffReservedGpusBeforeTheStart() {
      JobRequest job = TestJobs.training("p", 8).preemptible(false).build();

      PlacementDecision d = placer.decide(STARTS.minusSeconds(1), reservedNode(), job);

      assertThat(d.reason()).isEqualTo(UnplaceableReason.HELD_BY_RESERVATION);
      assertThat(d.trace()).anySatisfy(t -> {
        assertThat(t.subject()).isEqualTo("r-ranker");
        assertThat(t.detail()).contains("starts 2026-11-02T14:15:00Z");
      });
    }

    @Test
    void shouldHoldReservedGpusForTheServiceOnceTheReservationStarts() {
      JobRequest training = TestJobs.training("t", 1).preemptible(true).build();
      JobRequest ranker = TestJobs.instance("r1", 0.5).service("ranker").build();

      assertThat(placer.decide(STARTS, reservedNode(), training).reason())
          .isEqualTo(UnplaceableReason.HELD_BY_RESERVATION);
      assertThat(placer.decide(STARTS, reservedNode(), ranker).nodeIds()).containsExactly("n1");
    }

    @Test
    void shouldFreeReservedGpusForAnyoneAfterAnEarlyRelease() {
      Instant release = Instant.parse("2026-11-02T18:50:00Z");
      ClusterSnapshot snap = reservedNode().withReservation(
          reservedNode().reservations().get("r-ranker").releasedAt(release));
      JobRequest job = TestJobs.training("p", 8).preemptible(false).build();

      assertThat(placer.decide(release.minusSeconds(1), snap, job).placed()).isFalse();
      assertThat(placer.decide(release, snap, job).placed()).isTrue();
    }
  }

  @Nested
  class WhatIfReleased {

    @Test
    void shouldAnswerWhetherThePreemptorFitsIfVictimsWereEvicted() {
      ClusterSnapshot snap = cluster().node("n1", "D1", "P1", "S1")
          .runningRange("v1", "n1", 0, 4).runningRange("v2", "n1", 4, 6)
          .instance("v3", "n1", 6, 0.5).build();
      JobRequest preemptor = TestJobs.training("online", 8).workers(1).build();

      assertThat(placer.decide(NOW, snap, preemptor).placed()).isFalse();
      assertThat(placer.decideIfReleased(NOW, snap, preemptor, Set.of("v1", "v2")).placed())
          .isFalse();
      PlacementDecision all = placer.decideIfReleased(NOW, snap, preemptor,
          Set.of("v1", "v2", "v3"));
      assertThat(all.placed()).isTrue();
      assertThat(all.ledgerVersion()).isEqualTo(snap.version() + 1);
      assertThat(snap.allocations()).containsOnlyKeys("v1", "v2", "v3");
    }

    @Test
    void shouldApplyAPlacedDecisionToTheLedger() {
      ClusterSnapshot snap = twoPods().build();
      JobRequest job = TestJobs.training("g", 8).build();

      ClusterSnapshot after = Placer.apply(snap, job, placer.decide(NOW, snap, job));

      assertThat(after.allocation("g")).isPresent();
      assertThat(after.idleGpus()).isEqualTo(snap.idleGpus() - 8);
    }
  }
}
