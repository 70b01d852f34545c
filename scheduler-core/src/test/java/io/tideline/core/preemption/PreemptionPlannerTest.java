package io.tideline.core.preemption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tideline.core.model.CheckpointProfile;
import io.tideline.core.preemption.PreemptionDecision.Outcome;
import io.tideline.core.preemption.TraceEntry.Result;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class PreemptionPlannerTest {

  static final Instant NOW = Instant.parse("2026-11-02T14:30:00Z");
  static final Instant NEXT_TROUGH = Instant.parse("2026-11-03T00:00:00Z");

  final PreemptionPlanner planner = new PreemptionPlanner(PreemptionConfig.DEFAULTS);

  /** An 8-GPU training job 2.5 h into its run that checkpointed 5 minutes ago. */
  static Jobs victim(String id) {
    return Jobs.training(id).startedAt("2026-11-02T12:00:00Z")
        .lastCheckpointAt("2026-11-02T14:25:00Z");
  }

  /** One 8-GPU node per job, each job holding its whole node. */
  static NodeCluster oneNodeEach(RunningJob... jobs) {
    NodeCluster cluster = new NodeCluster(jobs.length, 8);
    for (int i = 0; i < jobs.length; i++) {
      cluster.place(jobs[i].jobId(), i, jobs[i].gpusHeld());
    }
    return cluster;
  }

  PreemptionDecision decide(PreemptionPlanner p, PreemptionRequest r, NodeCluster cluster,
      Instant now, RunningJob... jobs) {
    return p.decide(r, List.of(jobs), cluster, now, NEXT_TROUGH);
  }

  PreemptionDecision decide(PreemptionRequest r, NodeCluster cluster, Instant now,
      RunningJob... jobs) {
    return decide(planner, r, cluster, now, jobs);
  }

  static TraceEntry entryFor(PreemptionDecision d, String subject) {
    List<TraceEntry> entries = d.trace().stream().filter(e -> e.subject().equals(subject))
        .toList();
    assertThat(entries).as("trace entries for %s", subject).hasSize(1);
    return entries.get(0);
  }

  static TraceEntry verdictLine(PreemptionDecision d) {
    return d.trace().get(d.trace().size() - 1);
  }

  static List<String> victimIds(PreemptionDecision d) {
    return d.victims().stream().map(Victim::jobId).toList();
  }

  @Test
  void shouldPreemptTheOnlyVictimThatFreesAWholeNode() {
    RunningJob t = victim("train-1").build();

    PreemptionDecision d = decide(Requests.online("inf-1").build(), oneNodeEach(t), NOW, t);

    assertThat(d.outcome()).isEqualTo(Outcome.PREEMPT);
    assertThat(victimIds(d)).containsExactly("train-1");
    assertThat(d.preemptorScore()).isEqualTo(10.0);
    assertThat(d.totalCostGpuHours()).isCloseTo(412.0 * 8 / 3600, within(1e-9));
    assertThat(d.gainGpuHours()).isCloseTo(8 * (600 / 3600.0) * 5, within(1e-9));
    assertThat(d.policyVersion()).isEqualTo("preemption-v1");
    assertThat(d.decidedAt()).isEqualTo(NOW);
    assertThat(entryFor(d, "train-1").result()).isEqualTo(Result.TAKE);
    assertThat(entryFor(d, "train-1").detail())
        .isEqualTo("score 2.25, ratio 4.44, cost 0.92 GPU-h");
    assertThat(verdictLine(d).detail()).isEqualTo("1 victims, cost 0.92 GPU-h × 1.50 ≤ gain 6.67 GPU-h");
  }

  @Nested
  class Protection {

    final RunningJob startedAt14 = victim("train-1").startedAt("2026-11-02T14:00:00Z")
        .lastCheckpointAt((Instant) null).build();

    @Test
    void shouldNotPreemptInsideProtectionWindow() {
      PreemptionDecision d = decide(Requests.online("inf-1").build(), oneNodeEach(startedAt14),
          Instant.parse("2026-11-02T14:14:59Z"), startedAt14);

      assertThat(d.outcome()).isEqualTo(Outcome.REFUSED);
      assertThat(d.victims()).isEmpty();
      assertThat(entryFor(d, "train-1")).isEqualTo(new TraceEntry("train-1",
          PreemptionRule.P3_PROTECTION, Result.REFUSE, "protected until 2026-11-02T14:15:00Z"));
    }

    @Test
    void shouldPreemptAtExactlyFifteenMinutesAfterStart() {
      PreemptionDecision d = decide(Requests.online("inf-1").build(), oneNodeEach(startedAt14),
          Instant.parse("2026-11-02T14:15:00Z"), startedAt14);

      assertThat(d.outcome()).isEqualTo(Outcome.PREEMPT);
      assertThat(victimIds(d)).containsExactly("train-1");
    }
  }

  @Nested
  class Cooldown {

    final RunningJob preemptedAt14 = victim("train-1").lastPreemptedAt("2026-11-02T14:00:00Z")
        .startedAt("2026-11-02T14:05:00Z").lastCheckpointAt("2026-11-02T14:25:00Z").build();

    @Test
    void shouldNotPreemptAgainInsideCooldown() {
      PreemptionDecision d = decide(Requests.online("inf-1").build(), oneNodeEach(preemptedAt14),
          Instant.parse("2026-11-02T14:29:59Z"), preemptedAt14);

      assertThat(d.outcome()).isEqualTo(Outcome.REFUSED);
      assertThat(entryFor(d, "train-1")).isEqualTo(new TraceEntry("train-1",
          PreemptionRule.P3_COOLDOWN, Result.REFUSE, "cooldown until 2026-11-02T14:30:00Z"));
    }

    @Test
    void shouldPreemptAgainAtExactlyThirtyMinutesAfterThePreemption() {
      PreemptionDecision d = decide(Requests.online("inf-1").build(), oneNodeEach(preemptedAt14),
          Instant.parse("2026-11-02T14:30:00Z"), preemptedAt14);

      assertThat(d.outcome()).isEqualTo(Outcome.PREEMPT);
    }
  }

  @Nested
  class ScoreThreshold {

    /** Scores equal static priorities: online 3 (or 2.98) vs training 2. */
    PreemptionDecision decideWithOnlinePriority(double online) {
      PreemptionPlanner p = new PreemptionPlanner(Configs.defaults()
          .priorities(online, 5, 2, 1).dynamicWeights(0, 0).build());
      RunningJob t = victim("train-1").build();
      return decide(p, Requests.online("inf-1").build(), oneNodeEach(t), NOW, t);
    }

    @Test
    void shouldPreemptAtAScoreRatioOfExactlyOnePointFive() {
      PreemptionDecision d = decideWithOnlinePriority(3.0);

      assertThat(d.outcome()).isEqualTo(Outcome.PREEMPT);
      assertThat(entryFor(d, "train-1").detail()).startsWith("score 2.00, ratio 1.50,");
    }

    @Test
    void shouldNotPreemptAtAScoreRatioOfOnePointFortyNine() {
      PreemptionDecision d = decideWithOnlinePriority(2.98);

      assertThat(d.outcome()).isEqualTo(Outcome.REFUSED);
      assertThat(entryFor(d, "train-1")).isEqualTo(new TraceEntry("train-1",
          PreemptionRule.P2_THRESHOLD, Result.REFUSE, "score ratio 1.49 < 1.50"));
    }

    @Test
    void shouldAcceptARatioThatIsOnePointFiveUpToFloatingPointNoise() {
      // 3.3 / 2.2 is 1.4999999999999998 in doubles: the rule is about the policy, not rounding.
      PreemptionPlanner p = new PreemptionPlanner(Configs.defaults()
          .priorities(3.3, 5, 2.2, 1).dynamicWeights(0, 0).build());
      RunningJob t = victim("train-1").build();

      assertThat(decide(p, Requests.online("inf-1").build(), oneNodeEach(t), NOW, t).outcome())
          .isEqualTo(Outcome.PREEMPT);
    }
  }

  @Nested
  class GainVersusCost {

    /** 1 GPU, no checkpoint, started an hour ago: exactly 1.0 GPU-hour to evict. */
    final RunningJob oneGpuHour = Jobs.training("train-1").gpus(1).checkpoint(null)
        .startedAt("2026-11-02T13:30:00Z").build();

    PreemptionDecision decideWithWait(long waitSeconds) {
      NodeCluster cluster = new NodeCluster(1, 1).place("train-1", 0, 1);
      return decide(Requests.online("inf-1").gpus(1).waitSeconds(waitSeconds).build(), cluster,
          NOW, oneGpuHour);
    }

    @Test
    void shouldPreemptWhenGainEqualsCostTimesMargin() {
      // gain = 1 GPU × 0.3 h × 5 = 1.5 = 1.0 GPU-h × 1.5
      PreemptionDecision d = decideWithWait(1080);

      assertThat(d.outcome()).isEqualTo(Outcome.PREEMPT);
      assertThat(d.totalCostGpuHours()).isEqualTo(1.0);
      assertThat(d.gainGpuHours()).isCloseTo(1.5, within(1e-12));
    }

    @Test
    void shouldNotPreemptWhenGainFallsJustShortOfCostTimesMargin() {
      PreemptionDecision d = decideWithWait(1070);

      assertThat(d.outcome()).isEqualTo(Outcome.REFUSED);
      assertThat(entryFor(d, "train-1")).isEqualTo(new TraceEntry("train-1",
          PreemptionRule.P5_GAIN_VS_COST, Result.REFUSE,
          "cost 1.00 GPU-h × 1.50 > gain 1.49 GPU-h"));
    }

    @Test
    void shouldRefuseASetWhoseTotalCostOutweighsTheGainEvenIfEachVictimPays() {
      RunningJob a = victim("train-a").build();
      RunningJob b = victim("train-b").build();
      // 16 GPUs × 100 s × 5 = 2.22 GPU-h: each victim (0.92 × 1.5) passes, both (1.83 × 1.5) not
      PreemptionRequest r = Requests.online("inf-16").gpus(16).nodes(2).waitSeconds(100).build();

      PreemptionDecision d = decide(r, oneNodeEach(a, b), NOW, a, b);

      assertThat(d.outcome()).isEqualTo(Outcome.REFUSED);
      assertThat(d.victims()).isEmpty();
      assertThat(d.totalCostGpuHours()).isCloseTo(2 * 412.0 * 8 / 3600, within(1e-9));
      assertThat(verdictLine(d)).isEqualTo(new TraceEntry("inf-16",
          PreemptionRule.P5_GAIN_VS_COST, Result.REFUSE,
          "2 victims, cost 1.83 GPU-h × 1.50 > gain 2.22 GPU-h"));
      assertThat(entryFor(d, "train-a").detail()).contains("but the set does not pay");
    }
  }

  @Nested
  class Eligibility {

    @Test
    void shouldNeverPreemptAJobNotDeclaredPreemptible() {
      RunningJob t = victim("train-1").preemptible(false).build();

      PreemptionDecision d = decide(Requests.online("inf-1").build(), oneNodeEach(t), NOW, t);

      assertThat(d.outcome()).isEqualTo(Outcome.REFUSED);
      assertThat(entryFor(d, "train-1")).isEqualTo(new TraceEntry("train-1",
          PreemptionRule.W4_PREEMPTIBLE, Result.REFUSE, "not preemptible"));
      assertThat(verdictLine(d).detail()).isEqualTo("no eligible victim among 1 running jobs");
    }

    @Test
    void shouldNeverInterruptOnlineInferenceEvenIfDeclaredPreemptible() {
      RunningJob inf = Jobs.onlineInference("inf-old").preemptible(true).build();

      PreemptionDecision d = decide(Requests.online("inf-1").build(), oneNodeEach(inf), NOW, inf);

      assertThat(entryFor(d, "inf-old").rule()).isEqualTo(PreemptionRule.W1_NEVER_INTERRUPTED);
      assertThat(d.outcome()).isEqualTo(Outcome.REFUSED);
    }

    @Test
    void shouldRefuseAPreemptorWhoseRightQuotaDidNotGrant() {
      RunningJob t = victim("train-1").build();

      PreemptionDecision d = decide(Requests.online("inf-1").rightGranted(false).build(),
          oneNodeEach(t), NOW, t);

      assertThat(d.outcome()).isEqualTo(Outcome.REFUSED);
      assertThat(d.trace()).containsExactly(new TraceEntry("inf-1",
          PreemptionRule.W4_RIGHT_TO_PREEMPT, Result.REFUSE,
          "right to preempt not granted by quota"));
    }

    @Test
    void shouldRefuseAPlainTrainingPreemptorEvenWithAGrantedRight() {
      RunningJob x = Jobs.exploratory("explore-1").startedAt("2026-11-02T14:00:00Z")
          .lastCheckpointAt("2026-11-02T14:25:00Z").build();

      PreemptionDecision d = decide(Requests.training("train-new").build(), oneNodeEach(x),
          NOW, x);

      assertThat(d.outcome()).isEqualTo(Outcome.REFUSED);
      assertThat(verdictLine(d).detail()).isEqualTo(
          "TRAINING is not critical and neither its class nor tenant search carries the right to"
              + " preempt");
    }

    @Test
    void shouldLetACriticalTrainingJobPreemptExploratoryTraining() {
      RunningJob x = Jobs.exploratory("explore-1").startedAt("2026-11-02T14:00:00Z")
          .lastCheckpointAt("2026-11-02T14:25:00Z").build();

      PreemptionDecision d = decide(Requests.training("release-eval").critical(true).waitSeconds(3600)
              .build(),
          oneNodeEach(x), NOW, x);

      assertThat(d.outcome()).isEqualTo(Outcome.PREEMPT);
      assertThat(d.trace().get(0).detail()).isEqualTo("critical job");
    }

    @Test
    void shouldLetAConfiguredBusinessLevelPreempt() {
      PreemptionPlanner p = new PreemptionPlanner(Configs.defaults().tenantsWithRight("ads")
          .build());
      RunningJob x = Jobs.exploratory("explore-1").startedAt("2026-11-02T14:00:00Z")
          .lastCheckpointAt("2026-11-02T14:25:00Z").build();

      PreemptionDecision d = decide(p, Requests.training("ads-train").tenant("ads").waitSeconds(3600)
              .build(),
          oneNodeEach(x), NOW, x);

      assertThat(d.outcome()).isEqualTo(Outcome.PREEMPT);
      assertThat(d.trace().get(0).detail())
          .isEqualTo("tenant ads is a business level with the right to preempt");
    }

    @Test
    void shouldNeverEvictAJobWithHugeState() {
      RunningJob big = victim("train-big").checkpoint(new CheckpointProfile(2048, 20, 64, 600))
          .build();

      PreemptionDecision d = decide(Requests.online("inf-1").build(), oneNodeEach(big), NOW, big);

      assertThat(entryFor(d, "train-big")).isEqualTo(new TraceEntry("train-big",
          PreemptionRule.P5_HUGE_STATE, Result.REFUSE, "state 2048 GB > 1024 GB"));
    }

    @Test
    void shouldLeaveAJobNearCompletionToFinish() {
      // migration wall time 412 s: 1,235 s left is under 3 × 412 s, 1,236 s is not
      RunningJob almostDone = victim("train-almost").remainingSeconds(1235).build();
      RunningJob longRunner = victim("train-long").lastCheckpointAt("2026-11-02T14:20:00Z")
          .remainingSeconds(36_000).build();

      PreemptionDecision d = decide(Requests.online("inf-1").build(),
          oneNodeEach(almostDone, longRunner), NOW, almostDone, longRunner);

      assertThat(victimIds(d)).containsExactly("train-long");
      assertThat(entryFor(d, "train-almost")).isEqualTo(new TraceEntry("train-almost",
          PreemptionRule.P5_NEAR_COMPLETION, Result.REFUSE,
          "near completion: 1235 s left < 3.00 × 412 s migration"));
    }

    @Test
    void shouldTakeAJobWhoseRemainingTimeIsExactlyTheNearCompletionBound() {
      RunningJob t = victim("train-1").remainingSeconds(1236).build();

      assertThat(decide(Requests.online("inf-1").build(), oneNodeEach(t), NOW, t).outcome())
          .isEqualTo(Outcome.PREEMPT);
    }

    @Test
    void shouldSkipThePreemptorItselfInTheSnapshot() {
      RunningJob self = victim("inf-1").build();

      PreemptionDecision d = decide(Requests.online("inf-1").build(), oneNodeEach(self), NOW,
          self);

      assertThat(d.trace()).contains(new TraceEntry("inf-1", PreemptionRule.SELF, Result.REFUSE,
          "is the preemptor"));
      assertThat(d.victims()).isEmpty();
    }
  }

  @Nested
  class VictimSet {

    @Test
    void shouldPreferTheVictimThatJustWroteACheckpoint() {
      RunningJob fresh = victim("train-fresh").lastCheckpointAt("2026-11-02T14:29:00Z").build();
      RunningJob stale = victim("train-stale").lastCheckpointAt("2026-11-02T14:21:00Z").build();

      PreemptionDecision d = decide(Requests.online("inf-1").build(), oneNodeEach(stale, fresh),
          NOW, stale, fresh);

      assertThat(victimIds(d)).containsExactly("train-fresh");
      assertThat(entryFor(d, "train-stale").result()).isEqualTo(Result.SKIP);
    }

    @Test
    void shouldPreferTheVictimWhoseCacheIsStillCold() {
      RunningJob warm = victim("train-warm").cacheWarm(400).build();
      RunningJob cold = victim("train-cold").cacheCold(400).build();

      PreemptionDecision d = decide(Requests.online("inf-1").build(), oneNodeEach(warm, cold),
          NOW, warm, cold);

      assertThat(victimIds(d)).containsExactly("train-cold");
    }

    @Test
    void shouldPruneCheapVictimsThatDoNotHelpThePlacement() {
      // node 0: two 4-GPU jobs; node 1: a cheap 1-GPU job next to 7 GPUs of online inference
      RunningJob a = victim("n0-a").gpus(4).build();
      RunningJob b = victim("n0-b").gpus(4).build();
      RunningJob tiny = victim("n1-tiny").gpus(1).lastCheckpointAt("2026-11-02T14:29:30Z").build();
      RunningJob online = Jobs.onlineInference("n1-online").gpus(7).build();
      NodeCluster cluster = new NodeCluster(2, 8).place("n0-a", 0, 4).place("n0-b", 0, 4)
          .place("n1-tiny", 1, 1).place("n1-online", 1, 7);

      PreemptionRequest r = Requests.online("inf-1").build();

      PreemptionDecision d = decide(r, cluster, NOW, a, b, tiny, online);

      assertThat(d.outcome()).isEqualTo(Outcome.PREEMPT);
      assertThat(victimIds(d)).containsExactly("n0-a", "n0-b");
      assertThat(entryFor(d, "n1-tiny").result()).isEqualTo(Result.SKIP);
      assertThat(entryFor(d, "n1-tiny").detail()).endsWith("not needed");
      assertIrreducible(d, r, cluster);
    }

    @Test
    void shouldFreeTwoNodesForATwoNodeGangWithTheCheapestVictims() {
      RunningJob[] jobs = new RunningJob[4];
      for (int i = 0; i < 4; i++) {
        jobs[i] = victim("train-" + i).lastCheckpointAt(NOW.minusSeconds(60L * (i + 1))).build();
      }
      NodeCluster cluster = oneNodeEach(jobs);

      PreemptionRequest r = Requests.online("inf-16").gpus(16).nodes(2).build();

      PreemptionDecision d = decide(r, cluster, NOW, jobs);

      assertThat(victimIds(d)).containsExactly("train-0", "train-1");
      assertIrreducible(d, r, cluster);
    }

    @Test
    void shouldRefuseWhenEvenEvictingEveryEligibleJobDoesNotFreeAPlacement() {
      RunningJob t = victim("train-1").build();
      RunningJob online = Jobs.onlineInference("inf-old").gpus(8).build();

      PreemptionDecision d = decide(Requests.online("inf-16").gpus(16).nodes(2).build(),
          oneNodeEach(t, online), NOW, t, online);

      assertThat(d.outcome()).isEqualTo(Outcome.REFUSED);
      assertThat(verdictLine(d)).isEqualTo(new TraceEntry("inf-16", PreemptionRule.FEASIBILITY,
          Result.REFUSE, "no feasible placement even evicting all 1 eligible candidates"));
    }

    @Test
    void shouldNotPreemptWhenThePreemptorAlreadyFits() {
      RunningJob t = victim("train-1").build();
      NodeCluster cluster = new NodeCluster(2, 8).place("train-1", 0, 8);

      PreemptionDecision d = decide(Requests.online("inf-1").build(), cluster, NOW, t);

      assertThat(d.outcome()).isEqualTo(Outcome.REFUSED);
      assertThat(verdictLine(d).detail()).isEqualTo("fits without evicting anyone");
    }

    @Test
    void shouldBreakCostTiesByJobId() {
      RunningJob b = victim("train-b").build();
      RunningJob a = victim("train-a").build();

      PreemptionDecision d = decide(Requests.online("inf-1").build(), oneNodeEach(b, a), NOW,
          b, a);

      assertThat(victimIds(d)).containsExactly("train-a");
    }

    @Test
    void shouldChooseTheSameVictimsWhateverTheSnapshotOrder() {
      List<RunningJob> jobs = new ArrayList<>();
      NodeCluster cluster = new NodeCluster(12, 8);
      Random random = new Random(7);
      for (int node = 0; node < 12; node++) {
        for (int slot = 0; slot < 4; slot++) {
          String id = "job-" + node + "-" + slot;
          jobs.add(victim(id).gpus(2).lastCheckpointAt(NOW.minusSeconds(random.nextInt(600)))
              .build());
          cluster.place(id, node, 2);
        }
      }
      PreemptionRequest r = Requests.online("inf-24").gpus(24).nodes(3).waitSeconds(1800).build();

      PreemptionDecision first = planner.decide(r, jobs, cluster, NOW, NEXT_TROUGH);
      for (int round = 0; round < 5; round++) {
        List<RunningJob> shuffled = new ArrayList<>(jobs);
        Collections.shuffle(shuffled, new Random(round));
        PreemptionDecision again = planner.decide(r, shuffled, cluster, NOW, NEXT_TROUGH);
        assertThat(again.victims()).isEqualTo(first.victims());
        assertThat(new HashSet<>(again.trace())).isEqualTo(new HashSet<>(first.trace()));
      }
      assertThat(planner.decide(r, jobs, cluster, NOW, NEXT_TROUGH)).isEqualTo(first);
      assertThat(first.victims()).hasSize(12);
    }

    @Test
    void shouldFindAVictimBehind512CheaperUselessOnesWithLogarithmicallyManyProbes() {
      // 512 nodes: 7 GPUs of online inference + 1 cheap 1-GPU training job each; one node held
      // whole by a dearer 8-GPU job, the only eviction that frees a node.
      List<RunningJob> jobs = new ArrayList<>();
      NodeCluster cluster = new NodeCluster(513, 8);
      for (int node = 0; node < 512; node++) {
        String cheap = String.format("cheap-%03d", node);
        jobs.add(victim(cheap).gpus(1).lastCheckpointAt(NOW).build());
        jobs.add(Jobs.onlineInference("online-" + node).gpus(7).build());
        cluster.place(cheap, node, 1).place("online-" + node, node, 7);
      }
      jobs.add(victim("whole-node").build());
      cluster.place("whole-node", 512, 8);

      FeasibilityProbe prefixOnly = cluster::feasibleWithout; // not incremental
      PreemptionDecision d = planner.decide(Requests.online("inf-1").build(), jobs, prefixOnly,
          NOW, NEXT_TROUGH);

      assertThat(victimIds(d)).containsExactly("whole-node");
      // 1 "fits already?" + 11 galloping (1 … 512, 513) + 1 pruning check, not 513 greedy steps
      assertThat(cluster.probes()).isEqualTo(13);
    }

    @Test
    void shouldFindTheSameVictimInOneLinearWalkWithAnIncrementalProbe() {
      List<RunningJob> jobs = new ArrayList<>();
      NodeCluster cluster = new NodeCluster(513, 8);
      for (int node = 0; node < 512; node++) {
        String cheap = String.format("cheap-%03d", node);
        jobs.add(victim(cheap).gpus(1).lastCheckpointAt(NOW).build());
        jobs.add(Jobs.onlineInference("online-" + node).gpus(7).build());
        cluster.place(cheap, node, 1).place("online-" + node, node, 7);
      }
      jobs.add(victim("whole-node").build());
      cluster.place("whole-node", 512, 8);

      PreemptionDecision d = planner.decide(Requests.online("inf-1").build(), jobs, cluster, NOW,
          NEXT_TROUGH);

      assertThat(victimIds(d)).containsExactly("whole-node");
      // 1 "fits already?" + 1 session; 513 evictions and 512 put-backs, each one job's update
      assertThat(cluster.probes()).isEqualTo(2);
      assertThat(cluster.idsVisited()).isEqualTo(513 + 512);
    }

    /** The victims free a placement, and without any one of them the preemptor does not fit. */
    void assertIrreducible(PreemptionDecision d, PreemptionRequest r, NodeCluster cluster) {
      Set<String> all = d.victims().stream().map(Victim::jobId).collect(Collectors.toSet());
      assertThat(cluster.feasibleWithout(r, all)).isTrue();
      for (String v : all) {
        Set<String> without = new HashSet<>(all);
        without.remove(v);
        assertThat(cluster.feasibleWithout(r, without)).as("feasible without %s", v).isFalse();
      }
    }
  }

  @Nested
  class Compensations {

    @Test
    void shouldCompensateEachVictimWithABoostAnOffPeakRetryAndASharedPoolFallback() {
      RunningJob t = victim("train-1").build();

      PreemptionDecision d = decide(Requests.online("inf-1").build(), oneNodeEach(t), NOW, t);

      assertThat(d.victims().get(0).compensation()).isEqualTo(new Compensation(
          Duration.ofMinutes(30), Instant.parse("2026-11-02T15:00:00Z"), NEXT_TROUGH, true));
      assertThat(d.victims().get(0).user()).isEqualTo("alice");
    }

    @Test
    void shouldNotSuggestARetryBeforeTheCooldownEnds() {
      RunningJob t = victim("train-1").build();

      PreemptionDecision d = planner.decide(Requests.online("inf-1").build(), List.of(t),
          oneNodeEach(t), NOW, Instant.parse("2026-11-02T14:40:00Z"));

      assertThat(d.victims().get(0).compensation().offPeakRetryAt())
          .isEqualTo("2026-11-02T15:00:00Z");
    }

    @Test
    void shouldLeaveTheRetryHintOutWhenNoTroughIsKnown() {
      RunningJob t = victim("train-1").build();

      PreemptionDecision d = planner.decide(Requests.online("inf-1").build(), List.of(t),
          oneNodeEach(t), NOW, null);

      assertThat(d.victims().get(0).compensation().offPeakRetryAt()).isNull();
    }
  }

  @Test
  void shouldExplainEveryCandidateExactlyOnce() {
    RunningJob taken = victim("train-taken").build();
    RunningJob notNeeded = victim("train-spare").lastCheckpointAt("2026-11-02T14:20:00Z").build();
    RunningJob online = Jobs.onlineInference("inf-old").gpus(8).build();
    RunningJob young = victim("train-young").startedAt("2026-11-02T14:20:00Z").build();
    NodeCluster cluster = oneNodeEach(taken, notNeeded, online, young);

    PreemptionDecision d = decide(Requests.online("inf-1").build(), cluster, NOW,
        taken, notNeeded, online, young);

    assertThat(d.trace()).extracting(TraceEntry::subject).containsExactly(
        "inf-1", "inf-1", "inf-1", "train-taken", "train-spare", "inf-old", "train-young",
        "inf-1");
    assertThat(d.trace()).extracting(TraceEntry::result).containsExactly(
        Result.PASS, Result.PASS, Result.PASS, Result.TAKE, Result.SKIP, Result.REFUSE,
        Result.REFUSE, Result.PASS);
    assertThat(d.trace().get(1).detail()).isEqualTo("score 10.00 = priority 10.00 × weight 1.00");
    assertThat(d.trace().get(2).detail()).isEqualTo(
        "gain 6.67 GPU-h = 8 GPUs × 0.17 h wait avoided × class weight 5.00 + reservation 0.00");
  }
}
