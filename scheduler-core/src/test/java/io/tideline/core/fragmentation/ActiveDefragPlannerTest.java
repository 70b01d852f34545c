package io.tideline.core.fragmentation;

import io.tideline.core.slots.SlotClass;
import static io.tideline.core.cluster.TestCluster.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.cluster.Allocation;
import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.TestJobs;
import io.tideline.core.placement.PlacementConfig;
import io.tideline.core.placement.Placer;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ActiveDefragPlannerTest {

  static final Instant NOW = Instant.parse("2026-11-03T01:00:00Z");
  final Placer placer = new Placer(PlacementConfig.DEFAULTS);
  final ActiveDefragPlanner planner = new ActiveDefragPlanner(DefragConfig.DEFAULTS, placer);

  /**
   * 5 nodes × 8 = 40 GPUs, so the 3% budget is 1.2 GPUs. a1, a2, a3 each hold one 0.5 instance;
   * r holds a non-preemptible 7-GPU job and one idle GPU; z is fully idle.
   */
  static ClusterSnapshot scattered() {
    return cluster()
        .node("a1", "D1", "P1", "S1").node("a2", "D1", "P1", "S1").node("a3", "D1", "P1", "S1")
        .node("r", "D1", "P1", "S1").node("z", "D1", "P1", "S1")
        .instance("i1", "a1", 0, 0.5).instance("i2", "a2", 0, 0.5).instance("i3", "a3", 0, 0.5)
        .build()
        .withAllocation(new Allocation(TestJobs.training("pinned", 7).preemptible(false).build(),
            IntStream.range(0, 7).mapToObj(g -> new GpuAssignment("r", g, 1.0)).toList()));
  }

  @Test
  void shouldEvacuateMostFragmentedNodesWithinThreePercentOfTheCluster() {
    DefragPlan plan = planner.plan(NOW, scattered(), SlotClass.TROUGH,
        DemandHistogram.wholeNode(8), List.of());

    // a1 first: i1 joins i2's half-used GPU. a2 next: i1 moves on to a3's half-used GPU (one
    // migration a1 → a3, counted once) and i2 fills r's last GPU. a3 would take 0.5 more: 1.5 >
    // 1.2, over the budget.
    assertThat(plan.migrations()).extracting(Migration::jobId).containsExactly("i1", "i2");
    assertThat(plan.migrations().get(0).from()).containsExactly(new GpuAssignment("a1", 0, 0.5));
    assertThat(plan.migrations().get(0).to()).containsExactly(new GpuAssignment("a3", 0, 0.5));
    assertThat(plan.migrations().get(1).to()).containsExactly(new GpuAssignment("r", 7, 0.5));
    assertThat(plan.budgetGpus()).isCloseTo(1.2, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(plan.migratedGpus()).isEqualTo(1.0).isLessThanOrEqualTo(0.03 * 40);
    // stranded: a1 7 + a2 7 + a3 7 + r 1 = 22 of 30 idle (z adds 8 idle, none stranded);
    // after: only a2's 7 of 31 idle (a1 8, a2 7, a3 8, r 0, z 8)
    assertThat(plan.fragmentationBefore()).isCloseTo(22.0 / 30, org.assertj.core.data.Offset
        .offset(1e-9));
    assertThat(plan.fragmentationAfter()).isCloseTo(7.0 / 31, org.assertj.core.data.Offset
        .offset(1e-9));
    assertThat(plan.trace()).anySatisfy(t -> assertThat(t.detail())
        .isEqualTo("emptying it would exceed the T4 budget or the per-plan cap"));
  }

  @Test
  void shouldNeverMigrateAtPeakEvenIfConfiguredTo() {
    ActiveDefragPlanner anySlot = new ActiveDefragPlanner(new DefragConfig(0.03,
        Duration.ofHours(1), EnumSet.allOf(SlotClass.class), 64), placer);

    DefragPlan plan = anySlot.plan(NOW, scattered(), SlotClass.PEAK,
        DemandHistogram.wholeNode(8), List.of());

    assertThat(plan.isEmpty()).isTrue();
    assertThat(plan.trace().get(0).detail()).isEqualTo("never at peak");
  }

  @Test
  void shouldOnlyRunInTroughSlotsByDefault() {
    assertThat(planner.plan(NOW, scattered(), SlotClass.FLAT, DemandHistogram.wholeNode(8),
        List.of()).isEmpty()).isTrue();
    assertThat(planner.plan(NOW, scattered(), SlotClass.DEEP_TROUGH,
        DemandHistogram.wholeNode(8), List.of()).isEmpty()).isFalse();
  }

  @Test
  void shouldStopWhenRecentMigrationsUsedTheBudget() {
    PastMigration recent = new PastMigration(NOW.minus(Duration.ofMinutes(30)), 1.0);

    DefragPlan plan = planner.plan(NOW, scattered(), SlotClass.TROUGH,
        DemandHistogram.wholeNode(8), List.of(recent));

    // 1.2 - 1.0 = 0.2 left: no 0.5 instance fits
    assertThat(plan.isEmpty()).isTrue();
  }

  @Test
  void shouldNotMoveWorkWhenItWouldNotReduceStranding() {
    // single-GPU demand: nothing is stranded, so nothing is worth moving
    DefragPlan plan = planner.plan(NOW, scattered(), SlotClass.TROUGH,
        new DemandHistogram(new java.util.TreeMap<>(java.util.Map.of(1, 1L))), List.of());

    assertThat(plan.isEmpty()).isTrue();
    assertThat(plan.fragmentationBefore()).isZero();
  }
}
