package io.tideline.core.preemption;

import static io.tideline.core.pbt.PropertyFailures.assertCatches;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tideline.core.model.WorkloadClass;
import io.tideline.core.pbt.Gens;
import io.tideline.core.pbt.Seed;
import io.tideline.core.pbt.SeededProperty;
import io.tideline.core.pbt.Seeds;
import io.tideline.core.preemption.TraceEntry.Result;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Over random clusters and job mixes, no decision ever breaks a rule: W4 rights and eligibility,
 * W1 never-interrupted classes, P3 protection and cooldown, P2 threshold, P5 huge state, near
 * completion and gain ≥ cost × margin; and every preemption frees a feasible placement with no
 * unnecessary victim. The checks recompute the rules from the config, not from the planner. Each
 * property is also run on a deliberately broken planner or probe, which it must catch.
 */
class PreemptionInvariantsTest {

  static final Instant NOW = Instant.parse("2026-11-02T14:30:00Z");
  static final PreemptionConfig CONFIG = Configs.defaults().tenantsWithRight("ads").build();
  static final double SLACK = 1e-9;

  final MigrationCostModel costs = new MigrationCostModel(CONFIG);

  /** The decision under test, bound to {@link #NOW}: the real planner or a broken fixture. */
  interface Planner {
    PreemptionDecision decide(PreemptionRequest p, List<RunningJob> jobs, FeasibilityProbe probe);
  }

  static Planner planner(PreemptionConfig config) {
    PreemptionPlanner planner = new PreemptionPlanner(config);
    return (p, jobs, probe) -> planner.decide(p, jobs, probe, NOW, null);
  }

  final Planner planner = planner(CONFIG);

  /** One generated case: a cluster of {@code nodes} 8-GPU nodes and a preemptor, from two seeds. */
  record Case(long clusterSeed, long requestSeed, int nodes) {
    RandomCluster cluster() {
      return RandomCluster.generate(clusterSeed, nodes, NOW);
    }

    PreemptionRequest request() {
      return RandomCluster.randomRequest(requestSeed, nodes * 8);
    }
  }

  static Gen<Case> cases(int maxNodes) {
    Gen<Long> seeds = Gens.anyLong();
    Gen<Integer> nodes = Gens.ints(1, maxNodes);
    return in -> new Case(seeds.generate(in), seeds.generate(in), nodes.generate(in));
  }

  /**
   * The incremental walk (IncrementalProbe) and the prefix search (plain probe) are two ways to
   * the same set: over random clusters they take the same decision, trace included.
   */
  @SeededProperty
  void shouldChooseTheSameVictimsWithAnIncrementalProbeAsWithPrefixProbes(Seed seed) {
    incrementalWalkMatchesPrefixProbes(seed,
        rc -> (request, evicted) -> rc.cluster.feasibleWithout(request, evicted));
  }

  void incrementalWalkMatchesPrefixProbes(Seed seed,
      Function<RandomCluster, FeasibilityProbe> prefixProbe) {
    seed.qt(200).forAll(cases(12)).checkAssert(c -> {
      RandomCluster rc = c.cluster();
      PreemptionRequest p = c.request();

      PreemptionDecision incremental = planner.decide(p, rc.jobs, rc.cluster);
      PreemptionDecision prefix = planner.decide(p, rc.jobs, prefixProbe.apply(rc));

      assertThat(incremental).as("incremental walk = prefix probes").isEqualTo(prefix);
    });
  }

  @Test
  void shouldCatchAPrefixProbeThatDisagreesWithTheIncrementalWalk() {
    // broken: the prefix probe asks for one GPU more than the preemptor needs
    assertCatches(seed -> incrementalWalkMatchesPrefixProbes(seed,
        rc -> (request, evicted) -> rc.cluster.feasibleWithout(oneGpuMore(request), evicted)),
        "incremental walk = prefix probes");
  }

  /** A planner whose trace details at most {@code detailed} lines of each capped kind. */
  interface BoundedPlanner {
    PreemptionDecision decide(PreemptionRequest p, List<RunningJob> jobs, FeasibilityProbe probe,
        int detailed);
  }

  /**
   * Bounding the trace's words changes nothing but words: the same outcome, victims, cost and
   * gain, and the same lines, except that refused candidates and eligible ones not needed beyond
   * the first {@code detailed} of each (in trace order) keep only their rule and result.
   */
  @SeededProperty
  void shouldDecideTheSameWithATraceBoundedInWords(Seed seed) {
    PreemptionPlanner p = new PreemptionPlanner(CONFIG);
    boundedTraceKeepsTheDecision(seed, (r, jobs, probe, n) -> p.decide(r, jobs, probe, NOW,
        null, n));
  }

  void boundedTraceKeepsTheDecision(Seed seed, BoundedPlanner bounded) {
    seed.qt(200).forAll(cases(12), Gens.ints(0, 12)).checkAssert((c, detailed) -> {
      RandomCluster rc = c.cluster();
      PreemptionRequest p = c.request();
      PreemptionDecision full = planner.decide(p, rc.jobs, rc.cluster);
      PreemptionDecision brief = bounded.decide(p, rc.jobs, rc.cluster, detailed);

      assertThat(brief.outcome()).isEqualTo(full.outcome());
      assertThat(brief.victims()).isEqualTo(full.victims());
      assertThat(brief.totalCostGpuHours()).isEqualTo(full.totalCostGpuHours());
      List<TraceEntry> expected = new java.util.ArrayList<>();
      int refused = 0;
      int skipped = 0;
      for (TraceEntry e : full.trace()) {
        boolean refusal = e.result() == Result.REFUSE && !e.subject().equals(p.jobId());
        boolean beyond = refusal ? ++refused > detailed
            : e.result() == Result.SKIP && ++skipped > detailed;
        expected.add(beyond ? new TraceEntry("", e.rule(), e.result(), "") : e);
      }
      assertThat(brief.trace()).as("the bounded trace").isEqualTo(expected);
    });
  }

  @Test
  void shouldCatchATraceBoundedOneLineLate() {
    PreemptionPlanner p = new PreemptionPlanner(CONFIG);
    assertCatches(seed -> boundedTraceKeepsTheDecision(seed, (r, jobs, probe, n) ->
        p.decide(r, jobs, probe, NOW, null, n + 1)), "the bounded trace");
  }

  @SeededProperty
  void shouldNeverBreakARule(Seed seed) {
    neverBreaksARule(seed, planner);
  }

  void neverBreaksARule(Seed seed, Planner planner) {
    seed.qt(400).forAll(cases(12)).checkAssert(c -> {
      RandomCluster rc = c.cluster();
      PreemptionRequest p = c.request();
      checkRules(p, rc, planner.decide(p, rc.jobs, rc.cluster));
    });
  }

  @Test
  void shouldCatchAPlannerThatPreemptsInsideTheProtectionWindow() {
    // broken: the planner forgot P3's 15-minute protection after a (re)start
    Planner unprotected = planner(Configs.defaults().tenantsWithRight("ads")
        .protectionWindow(Duration.ZERO).build());

    assertCatches(seed -> neverBreaksARule(seed, unprotected), "P3 protection");
  }

  private void checkRules(PreemptionRequest p, RandomCluster rc, PreemptionDecision d) {
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

  /**
   * A coverage check of the generator, not of the planner: over the fixed seeds' 3 × 400 cases at
   * least 10% of the decisions preempt and at least 2% take two or more victims, so the rules
   * above are exercised. It runs on the fixed seeds only: on one random seed 7 of 400 cases can
   * land just under the 2% bar.
   */
  @Test
  void shouldPreemptOftenEnoughForTheInvariantsToBite() {
    assertPreemptsOftenEnough(Case::request);
  }

  void assertPreemptsOftenEnough(Function<Case, PreemptionRequest> requests) {
    Map<PreemptionDecision.Outcome, Integer> outcomes =
        new EnumMap<>(PreemptionDecision.Outcome.class);
    int[] total = {0};
    int[] twoOrMoreVictims = {0};
    for (Seed seed : Seeds.fixed()) {
      seed.qt(400).forAll(cases(12)).checkAssert(c -> {
        RandomCluster rc = c.cluster();
        PreemptionDecision d = planner.decide(requests.apply(c), rc.jobs, rc.cluster);
        outcomes.merge(d.outcome(), 1, Integer::sum);
        total[0]++;
        if (d.victims().size() >= 2) {
          twoOrMoreVictims[0]++;
        }
      });
    }
    System.out.printf("[preemption generator] %d cases: outcomes %s, >= 2 victims %d%n", total[0],
        outcomes, twoOrMoreVictims[0]);
    assertThat(outcomes.getOrDefault(PreemptionDecision.Outcome.PREEMPT, 0) * 100.0 / total[0])
        .as("%% of PREEMPT outcomes (%s of %d cases)", outcomes, total[0])
        .isGreaterThanOrEqualTo(10);
    assertThat(twoOrMoreVictims[0] * 100.0 / total[0])
        .as("%% of decisions with two or more victims")
        .isGreaterThanOrEqualTo(2);
  }

  @Test
  void shouldCatchAGeneratorThatNeverPreempts() {
    // broken: every preemptor is exploratory training without the right to preempt
    assertThatThrownBy(() -> assertPreemptsOftenEnough(c -> withoutRight(c.request())))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("% of PREEMPT outcomes");
  }

  @SeededProperty
  void shouldDecideTheSameWhateverTheSnapshotOrder(Seed seed) {
    decidesTheSameWhateverTheOrder(seed, planner);
  }

  void decidesTheSameWhateverTheOrder(Seed seed, Planner planner) {
    seed.qt(150).forAll(cases(12)).checkAssert(c -> {
      RandomCluster rc = c.cluster();
      PreemptionRequest p = c.request();
      List<RunningJob> shuffled = new ArrayList<>(rc.jobs);
      Collections.shuffle(shuffled, new Random(c.clusterSeed() ^ c.requestSeed()));

      PreemptionDecision a = planner.decide(p, rc.jobs, rc.cluster);
      PreemptionDecision b = planner.decide(p, shuffled, rc.cluster);

      assertThat(b.outcome()).as("outcome whatever the snapshot order").isEqualTo(a.outcome());
      assertThat(b.victims()).as("victims whatever the snapshot order").isEqualTo(a.victims());
      assertThat(new HashSet<>(b.trace())).as("trace whatever the snapshot order")
          .isEqualTo(new HashSet<>(a.trace()));
    });
  }

  @Test
  void shouldCatchAPlannerWhoseDecisionDependsOnTheSnapshotOrder() {
    // broken: an off-by-one loop that never looks at the last running job
    Planner offByOne = (p, jobs, probe) ->
        planner.decide(p, jobs.isEmpty() ? jobs : jobs.subList(0, jobs.size() - 1), probe);

    assertCatches(seed -> decidesTheSameWhateverTheOrder(seed, offByOne),
        "whatever the snapshot order");
  }

  static final PreemptionRequest EXPLORATORY_WITHOUT_RIGHT = new PreemptionRequest("exp", "search",
      "pat", WorkloadClass.EXPLORATORY_TRAINING, false, true, 8, 1, 7200, 50, 0);

  @SeededProperty
  void shouldNeverLetAJobWithoutTheRightPreempt(Seed seed) {
    neverLetsAJobWithoutTheRightPreempt(seed, planner);
  }

  void neverLetsAJobWithoutTheRightPreempt(Seed seed, Planner planner) {
    seed.qt(100).forAll(cases(8)).checkAssert(c -> {
      RandomCluster rc = c.cluster();
      assertThat(planner.decide(EXPLORATORY_WITHOUT_RIGHT, rc.jobs, rc.cluster).preempts())
          .as("exploratory search job without the right preempted").isFalse();
    });
  }

  @Test
  void shouldCatchAPlannerThatGrantsEveryoneTheRightToPreempt() {
    // broken: W4 grants every tenant the right, and exploratory work ranks like online inference
    // (so nothing but W4 stands between this job and a victim)
    Planner everyoneMayPreempt = planner(Configs.defaults().tenantsWithRight("ads", "search")
        .priorities(10, 5, 2, 10).build());

    assertCatches(seed -> neverLetsAJobWithoutTheRightPreempt(seed, everyoneMayPreempt),
        "without the right preempted");
  }

  private static PreemptionRequest oneGpuMore(PreemptionRequest r) {
    return new PreemptionRequest(r.jobId(), r.tenant(), r.user(), r.workloadClass(), r.critical(),
        r.preemptionRightGranted(), r.gpus() + 1, r.nodes(), r.expectedWaitSeconds(),
        r.reservationValueGpuHours(), r.gpuHoursConsumed());
  }

  private static PreemptionRequest withoutRight(PreemptionRequest r) {
    return new PreemptionRequest(r.jobId(), "search", r.user(), WorkloadClass.EXPLORATORY_TRAINING,
        false, r.preemptionRightGranted(), r.gpus(), r.nodes(), r.expectedWaitSeconds(),
        r.reservationValueGpuHours(), r.gpuHoursConsumed());
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
