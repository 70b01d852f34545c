package io.tideline.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.cluster.Allocation;
import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.NodeLedger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** One simulated day on a 16-node fleet: invariants every event must keep, for every policy. */
class SimulationScenarioTest {

  private static final SimConfig SMALL = SimConfig.DEFAULTS.with(7L, 1, 16);
  /** Submissions per day that keep 16 nodes full overnight, so the morning tide must preempt. */
  private static final double PRESSURE = 120;
  private static Scenario scenario;

  @BeforeAll
  static void scenario() {
    scenario = Scenario.synthetic(SMALL);
  }

  @Test
  void shouldProduceTheSameTableForTheSameSeed() {
    String first = table(Scenario.synthetic(SMALL));
    String second = table(Scenario.synthetic(SMALL));

    assertThat(second).isEqualTo(first);
    assertThat(first).contains("tideline").contains("hard-split");
  }

  @Test
  void shouldProduceADifferentWorkloadForAnotherSeed() {
    assertThat(Scenario.synthetic(SimConfig.DEFAULTS.with(8L, 1, 16)).jobs())
        .isNotEqualTo(scenario.jobs());
  }

  @Test
  void shouldNeverOverAllocateAGpuAtAnyEvent() {
    for (Policy policy : Policy.ALL) {
      List<String> violations = new ArrayList<>();
      new Simulation(scenario, policy).observe(sim -> {
        ClusterSnapshot snap = sim.snapshot();
        for (int n = 0; n < snap.topology().size(); n++) {
          NodeLedger l = snap.ledger(n);
          for (int g = 0; g < l.gpuCount(); g++) {
            double sum = l.holders(g).values().stream().mapToDouble(Double::doubleValue).sum();
            if (sum > 1.0 + ClusterSnapshot.SHARE_EPSILON) {
              violations.add(sim.now() + " " + snap.topology().node(n).id() + "/" + g + " " + sum);
            }
          }
        }
      }).run();
      assertThat(violations).as(policy.name()).isEmpty();
    }
  }

  @Test
  void shouldRunEveryGangWithAllOfItsGpusOrNotAtAll() {
    for (Policy policy : Policy.ALL) {
      List<String> violations = new ArrayList<>();
      new Simulation(scenario, policy).observe(sim -> {
        Map<String, Double> demand = sim.runningDemand();
        Map<String, Allocation> allocations = sim.snapshot().allocations();
        assertThat(allocations.keySet()).isEqualTo(demand.keySet());
        demand.forEach((id, gpus) -> {
          double held = allocations.get(id).gpuShare();
          if (Math.abs(held - gpus) > 1e-9) {
            violations.add(sim.now() + " " + id + " holds " + held + " of " + gpus);
          }
        });
      }).run();
      assertThat(violations).as(policy.name()).isEmpty();
    }
  }

  @Test
  void shouldChargePreemptionVictimsTheCostModelsTime() {
    Simulation sim = new Simulation(Scenario.synthetic(SMALL.withJobsPerDay(PRESSURE)),
        Policy.TIDELINE);
    sim.run();

    assertThat(sim.evictions()).isNotEmpty();
    for (Simulation.Eviction e : sim.evictions()) {
      assertThat(e.lostWallSeconds()).as(e.jobId())
          .isCloseTo(e.cost().lostProgressSeconds(), org.assertj.core.data.Offset.offset(1e-6));
      assertThat(e.restartDelaySeconds()).as(e.jobId()).isCloseTo(e.cost().restoreSeconds()
          + e.cost().commRebuildSeconds() + e.cost().cacheWarmupSeconds(),
          org.assertj.core.data.Offset.offset(1e-9));
      assertThat(e.workLostSeconds()).as(e.jobId()).isGreaterThanOrEqualTo(0)
          .isLessThanOrEqualTo(e.lostWallSeconds() + 1e-6);
    }
  }

  @Test
  void shouldNeverLendAcrossTheHardSplit() {
    List<String> violations = new ArrayList<>();
    Simulation sim = new Simulation(scenario, Policy.HARD_SPLIT);
    sim.observe(s -> s.snapshot().allocations().forEach((id, a) -> {
      boolean online = s.isOnline(id);
      for (GpuAssignment g : a.assignments()) {
        if (s.inferencePartition().contains(g.nodeId()) != online) {
          violations.add(s.now() + " " + id + " on " + g.nodeId());
        }
      }
    }));
    SimResult result = sim.run();

    assertThat(sim.inferencePartition()).isNotEmpty();
    assertThat(violations).isEmpty();
    assertThat(result.evictions()).isZero();
  }

  @Test
  void shouldEvictUnderNaivePriorityPreemptionWithoutAnyProtection() {
    SimResult naive = new Simulation(scenario, Policy.NAIVE_PREEMPTION).run();

    assertThat(naive.preemptionDecisions()).isPositive();
  }

  private static String table(Scenario s) {
    List<SimResult> results = new ArrayList<>();
    for (Policy p : Policy.ALL) {
      results.add(new Simulation(s, p).run());
    }
    return new Report(results).markdown() + new Report(results).csv();
  }
}
