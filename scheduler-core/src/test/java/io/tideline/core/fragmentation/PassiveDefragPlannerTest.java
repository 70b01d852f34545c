package io.tideline.core.fragmentation;

import io.tideline.core.slots.SlotClass;
import static io.tideline.core.cluster.TestCluster.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.TestJobs;
import io.tideline.core.model.JobRequest;
import io.tideline.core.placement.PlacementConfig;
import io.tideline.core.placement.Placer;
import io.tideline.core.placement.UnplaceableReason;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class PassiveDefragPlannerTest {

  static final Instant NOW = Instant.parse("2026-11-03T00:30:00Z");
  /** 10% of 24 GPUs = 2.4 GPUs per hour: room for this small cluster's scenarios. */
  static final DefragConfig ROOMY = new DefragConfig(0.10, Duration.ofHours(1),
      EnumSet.of(SlotClass.TROUGH, SlotClass.DEEP_TROUGH), 64);
  final Placer placer = new Placer(PlacementConfig.DEFAULTS);
  final JobRequest eightGpuWorker = TestJobs.training("big", 8).workers(1).build();

  /**
   * n1: four 0.25 instances on GPUs 0–3 (4 idle). n2: a 2-GPU training job (6 idle). n3: a
   * non-preemptible 8-GPU job. 10 idle GPUs in total, but no node with 8.
   */
  static ClusterSnapshot scattered() {
    return cluster()
        .node("n1", "D1", "P1", "S1").node("n2", "D1", "P1", "S1").node("n3", "D1", "P1", "S1")
        .instance("i1", "n1", 0, 0.25).instance("i2", "n1", 1, 0.25)
        .instance("i3", "n1", 2, 0.25).instance("i4", "n1", 3, 0.25)
        .running("t2", "n2", 0, 1)
        .build()
        .withAllocation(new io.tideline.core.cluster.Allocation(
            TestJobs.training("pinned", 8).preemptible(false).build(),
            java.util.stream.IntStream.range(0, 8)
                .mapToObj(g -> new GpuAssignment("n3", g, 1.0)).toList()));
  }

  @Test
  void shouldMoveTheSmallestInstancesToFreeAWholeNode() {
    ClusterSnapshot snap = scattered();
    assertThat(placer.decide(NOW, snap, eightGpuWorker).reason())
        .isEqualTo(UnplaceableReason.FRAGMENTED);

    DefragPlan plan = new PassiveDefragPlanner(ROOMY, placer)
        .plan(NOW, snap, eightGpuWorker, SlotClass.FLAT, List.of());

    // emptying n1 moves 4 × 0.25 = 1.0 GPU, cheaper than n2's 2.0; they pack onto one GPU of n2
    assertThat(plan.migrations()).extracting(Migration::jobId)
        .containsExactly("i1", "i2", "i3", "i4");
    assertThat(plan.migrations()).allSatisfy(m ->
        assertThat(m.to()).containsExactly(new GpuAssignment("n2", 2, 0.25)));
    assertThat(plan.migratedGpus()).isEqualTo(1.0);
    assertThat(plan.unlocked().nodeIds()).containsExactly("n1");
    assertThat(plan.fragmentationAfter()).isLessThan(plan.fragmentationBefore());
    // proposed, not applied
    assertThat(snap.ledger("n1").idleGpus()).isEqualTo(4);
  }

  @Test
  void shouldNotDefragmentAtPeak() {
    DefragPlan plan = new PassiveDefragPlanner(ROOMY, placer)
        .plan(NOW, scattered(), eightGpuWorker, SlotClass.PEAK, List.of());

    assertThat(plan.isEmpty()).isTrue();
    assertThat(plan.trace()).anySatisfy(t -> assertThat(t.detail()).isEqualTo("never at peak"));
  }

  @Test
  void shouldLeaveCapacityShortagesToPreemption() {
    JobRequest tooBig = TestJobs.training("huge", 16).build();

    DefragPlan plan = new PassiveDefragPlanner(ROOMY, placer)
        .plan(NOW, scattered(), tooBig, SlotClass.TROUGH, List.of());

    assertThat(plan.isEmpty()).isTrue();
    assertThat(plan.trace().get(0).detail())
        .isEqualTo("refused for INSUFFICIENT_CAPACITY, not fragmentation");
  }

  @Test
  void shouldProposeNothingWhenTheThreePercentBudgetIsTooSmall() {
    // 3% of 24 GPUs = 0.72 GPU: emptying n1 (1.0) or n2 (2.0) both exceed it
    DefragPlan plan = new PassiveDefragPlanner(DefragConfig.DEFAULTS, placer)
        .plan(NOW, scattered(), eightGpuWorker, SlotClass.TROUGH, List.of());

    assertThat(plan.isEmpty()).isTrue();
    assertThat(plan.budgetGpus()).isCloseTo(0.72, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void shouldCountOnlyMigrationsInsideTheWindowAgainstTheBudget() {
    PassiveDefragPlanner planner = new PassiveDefragPlanner(ROOMY, placer);
    // 2.4 - 1.5 = 0.9 < 1.0 needed while the earlier move is inside the hour …
    PastMigration inside = new PastMigration(NOW.minus(Duration.ofMinutes(59)), 1.5);
    // … and the full 2.4 once it is exactly one hour old
    PastMigration edge = new PastMigration(NOW.minus(Duration.ofHours(1)), 1.5);

    assertThat(planner.plan(NOW, scattered(), eightGpuWorker, SlotClass.TROUGH, List.of(inside))
        .isEmpty()).isTrue();
    assertThat(planner.plan(NOW, scattered(), eightGpuWorker, SlotClass.TROUGH, List.of(edge))
        .migrations()).hasSize(4);
  }

  @Test
  void shouldFreeTwoNodesForATwoWorkerGang() {
    ClusterSnapshot snap = cluster()
        .node("n1", "D1", "P1", "S1").node("n2", "D1", "P1", "S1")
        .node("n3", "D1", "P1", "S2").node("n4", "D1", "P1", "S2")
        .instance("i1", "n1", 0, 0.5).instance("i2", "n2", 0, 0.5)
        .running("t3", "n3", 0, 1, 2, 3).running("t4", "n4", 0, 1, 2, 3).build();
    JobRequest gang = TestJobs.training("g16", 16).workers(2).build();

    DefragPlan plan = new PassiveDefragPlanner(ROOMY, placer)
        .plan(NOW, snap, gang, SlotClass.DEEP_TROUGH, List.of());

    // n1 first (cheapest, then id), then n2 (same ASW as n1); both instances share n3's GPU 4
    assertThat(plan.migrations()).extracting(Migration::jobId).containsExactly("i1", "i2");
    assertThat(plan.migrations()).allSatisfy(m ->
        assertThat(m.to()).containsExactly(new GpuAssignment("n3", 4, 0.5)));
    assertThat(plan.unlocked().nodeIds()).containsExactly("n1", "n2");
    assertThat(plan.unlocked().crossDomain()).isFalse();
  }
}
