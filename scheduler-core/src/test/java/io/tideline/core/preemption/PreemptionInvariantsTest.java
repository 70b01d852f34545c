package io.tideline.core.preemption;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.model.WorkloadClass;
import io.tideline.core.preemption.TraceEntry.Result;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Histogram;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;
import net.jqwik.api.constraints.IntRange;

/**
 * Over random clusters and job mixes, no decision ever breaks a rule: W4 rights and eligibility,
 * W1 never-interrupted classes, P3 protection and cooldown, P2 threshold, P5 huge state, near
 * completion and gain ≥ cost × margin; and every preemption frees a feasible placement with no
 * unnecessary victim. The checks recompute the rules from the config, not from the planner.
 */
class PreemptionInvariantsTest {

  static final Instant NOW = Instant.parse("2026-11-02T14:30:00Z");
  static final PreemptionConfig CONFIG = Configs.defaults().tenantsWithRight("ads").build();
  static final double SLACK = 1e-9;

  final PreemptionPlanner planner = new PreemptionPlanner(CONFIG);
  final MigrationCostModel costs = new MigrationCostModel(CONFIG);

  /**
   * The incremental walk (IncrementalProbe) and the prefix search (plain probe) are two ways to
   * the same set: over random clusters they take the same decision, trace included.
   */
  @Property(tries = 200)
  void shouldChooseTheSameVictimsWithAnIncrementalProbeAsWithPrefixProbes(
      @ForAll long clusterSeed, @ForAll long requestSeed, @ForAll @IntRange(min = 1, max = 12)
      int nodes) {
    RandomCluster rc = RandomCluster.generate(clusterSeed, nodes, NOW);
    PreemptionRequest p = RandomCluster.randomRequest(requestSeed, nodes * 8);
    FeasibilityProbe prefixOnly = (request, evicted) -> rc.cluster.feasibleWithout(request, evicted);

    PreemptionDecision incremental = planner.decide(p, rc.jobs, rc.cluster, NOW, null);
    PreemptionDecision prefix = planner.decide(p, rc.jobs, prefixOnly, NOW, null);

    assertThat(incremental).isEqualTo(prefix);
  }

  @Property(tries = 400)
  void shouldNeverBreakARule(
      @ForAll long clusterSeed, @ForAll long requestSeed, @ForAll @IntRange(min = 1, max = 12)
      int nodes) {
    RandomCluster rc = RandomCluster.generate(clusterSeed, nodes, NOW);
    PreemptionRequest p = RandomCluster.randomRequest(requestSeed, nodes * 8);

    PreemptionDecision d = planner.decide(p, rc.jobs, rc.cluster, NOW, null);

    Map<String, RunningJob> byId = rc.jobs.stream()
        .collect(Collectors.toMap(RunningJob::jobId, Function.identity()));
    if (!d.preempts()) {
      assertThat(d.victims()).isEmpty();
      assertThat(d.trace()).noneMatch(e -> e.result() == Result.TAKE);
      return;
    }
    assertThat(p.preemptionRightGranted()).isTrue();
    assertThat(p.critical() || p.workloadClass() == WorkloadClass.ONLINE_INFERENCE
        || p.tenant().equals("ads")).as("W4 right").isTrue();

    double preemptorScore = staticPriority(p.workloadClass(), p.critical())
        * (1 + CONFIG.gpuHourWeight() * p.gpuHoursConsumed());
    double total = 0;
    for (Victim v : d.victims()) {
      RunningJob job = byId.get(v.jobId());
      assertThat(job).isNotNull();
      assertThat(job.preemptible()).as("W4 preemptible %s", v.jobId()).isTrue();
      assertThat(job.workloadClass()).isNotEqualTo(WorkloadClass.ONLINE_INFERENCE);
      assertThat(NOW).as("P3 protection %s", v.jobId())
          .isAfterOrEqualTo(job.startedAt().plus(Duration.ofMinutes(15)));
      if (job.lastPreemptedAt() != null) {
        assertThat(NOW).as("P3 cooldown %s", v.jobId())
            .isAfterOrEqualTo(job.lastPreemptedAt().plus(Duration.ofMinutes(30)));
      }
      double runHours = Duration.between(job.startedAt(), NOW).getSeconds() / 3600.0;
      double victimScore = staticPriority(job.workloadClass(), job.critical())
          * (1 + CONFIG.runTimeWeightPerHour() * runHours
              + CONFIG.gpuHourWeight() * job.gpuHoursConsumed());
      assertThat(preemptorScore).as("P2 threshold %s", v.jobId())
          .isGreaterThanOrEqualTo(1.5 * victimScore * (1 - SLACK));
      if (job.checkpoint() != null) {
        assertThat(job.checkpoint().stateSizeGb()).isLessThanOrEqualTo(1024);
      }
      MigrationCost cost = costs.cost(job, NOW);
      assertThat(v.cost()).isEqualTo(cost);
      if (job.expectedRemainingSeconds() != RunningJob.UNKNOWN_REMAINING) {
        assertThat((double) job.expectedRemainingSeconds()).as("P5 near completion %s", v.jobId())
            .isGreaterThanOrEqualTo(3 * cost.wallSeconds());
      }
      total += cost.gpuHours();
    }
    assertThat(d.totalCostGpuHours()).isCloseTo(total, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(d.gainGpuHours()).as("P5 gain ≥ cost × margin")
        .isGreaterThanOrEqualTo(total * 1.5 * (1 - SLACK));

    Set<String> ids = d.victims().stream().map(Victim::jobId).collect(Collectors.toSet());
    assertThat(ids).hasSameSizeAs(d.victims());
    assertThat(rc.cluster.feasibleWithout(p, ids)).as("frees a feasible placement").isTrue();
    for (String id : ids) {
      Set<String> without = new HashSet<>(ids);
      without.remove(id);
      assertThat(rc.cluster.feasibleWithout(p, without)).as("%s is necessary", id).isFalse();
    }
    assertThat(d.trace().stream().filter(e -> e.result() == Result.TAKE).map(TraceEntry::subject)
        .collect(Collectors.toSet())).isEqualTo(ids);
  }

  // A coverage check of the generator, not of the planner: on a random seed 7 of 400 tries can
  // land just under the 2% bar, so it runs on a fixed seed (the other properties stay random).
  @Property(tries = 400, seed = "20261102")
  @StatisticsReport(label = "outcome", format = Histogram.class)
  void shouldPreemptOftenEnoughForTheInvariantsToBite(
      @ForAll long clusterSeed, @ForAll long requestSeed, @ForAll @IntRange(min = 1, max = 12)
      int nodes) {
    RandomCluster rc = RandomCluster.generate(clusterSeed, nodes, NOW);
    PreemptionRequest p = RandomCluster.randomRequest(requestSeed, nodes * 8);
    PreemptionDecision d = planner.decide(p, rc.jobs, rc.cluster, NOW, null);
    Statistics.label("outcome").collect(d.outcome());
    Statistics.label("victims").collect(Math.min(d.victims().size(), 2));
    Statistics.label("outcome").coverage(c -> c.check(PreemptionDecision.Outcome.PREEMPT)
        .percentage(pct -> pct >= 10));
    Statistics.label("victims").coverage(c -> c.check(2).percentage(pct -> pct >= 2));
  }

  @Property(tries = 150)
  void shouldDecideTheSameWhateverTheSnapshotOrder(
      @ForAll long clusterSeed, @ForAll long requestSeed, @ForAll @IntRange(min = 1, max = 12)
      int nodes) {
    RandomCluster rc = RandomCluster.generate(clusterSeed, nodes, NOW);
    PreemptionRequest p = RandomCluster.randomRequest(requestSeed, nodes * 8);
    List<RunningJob> shuffled = new ArrayList<>(rc.jobs);
    Collections.shuffle(shuffled, new Random(clusterSeed ^ requestSeed));

    PreemptionDecision a = planner.decide(p, rc.jobs, rc.cluster, NOW, null);
    PreemptionDecision b = planner.decide(p, shuffled, rc.cluster, NOW, null);

    assertThat(b.outcome()).isEqualTo(a.outcome());
    assertThat(b.victims()).isEqualTo(a.victims());
    assertThat(new HashSet<>(b.trace())).isEqualTo(new HashSet<>(a.trace()));
  }

  @Property(tries = 100)
  void shouldNeverLetAJobWithoutTheRightPreempt(
      @ForAll long clusterSeed, @ForAll @IntRange(min = 1, max = 8) int nodes) {
    RandomCluster rc = RandomCluster.generate(clusterSeed, nodes, NOW);
    PreemptionRequest p = new PreemptionRequest("exp", "search", "pat",
        WorkloadClass.EXPLORATORY_TRAINING, false, true, 8, 1, 7200, 50, 0);

    assertThat(planner.decide(p, rc.jobs, rc.cluster, NOW, null).preempts()).isFalse();
  }

  private static double staticPriority(WorkloadClass wc, boolean critical) {
    double base = switch (wc) {
      case ONLINE_INFERENCE -> CONFIG.onlineInferencePriority();
      case BATCH_INFERENCE -> CONFIG.batchInferencePriority();
      case TRAINING -> CONFIG.trainingPriority();
      case EXPLORATORY_TRAINING -> CONFIG.exploratoryTrainingPriority();
    };
    return critical ? base * CONFIG.criticalMultiplier() : base;
  }
}
