package io.tideline.core.quota;

import static io.tideline.core.pbt.PropertyFailures.assertCatches;
import static io.tideline.core.quota.QuotaTestKit.ADS_BATCH;
import static io.tideline.core.quota.QuotaTestKit.ADS_TRAINING;
import static io.tideline.core.quota.QuotaTestKit.NO_CAP;
import static io.tideline.core.quota.QuotaTestKit.SEARCH_INFERENCE;
import static io.tideline.core.quota.QuotaTestKit.SEARCH_TRAINING;
import static io.tideline.core.quota.QuotaTestKit.T0;
import static io.tideline.core.quota.QuotaTestKit.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.generators.SourceDSL.integers;

import io.tideline.core.model.JobRequest;
import io.tideline.core.pbt.Gens;
import io.tideline.core.pbt.Seed;
import io.tideline.core.pbt.SeededProperty;
import io.tideline.core.pbt.Seeds;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Random sequences of submissions, completions and preemptions of borrowers, each followed by the
 * admission passes the quota service would run; after every step the quota invariants must hold.
 * Each invariant is also run against a deliberately broken admission pass, which it must catch.
 */
class QuotaInvariantsTest {

  enum Kind { SUBMIT, COMPLETE, PREEMPT }

  /** One event: what happens, to which queue / running job, how big, and how much time passes. */
  record Op(Kind kind, int queue, int gpus, boolean preemptible, int pick, int advanceMinutes) {}

  static final String[] QUEUES = {SEARCH_TRAINING, SEARCH_INFERENCE, ADS_TRAINING, ADS_BATCH};

  final QuotaDefinition def = QuotaTestKit.standard();

  /** The admission pass under test, bound to its definition: the real one or a broken fixture. */
  interface Pass {
    AdmissionPass.Result run(List<WaitingJob> waiting, QuotaLedger ledger, Instant now);
  }

  static Pass pass(QuotaConfig config, QuotaDefinition def) {
    AdmissionPass pass = new AdmissionPass(config);
    return (waiting, ledger, now) -> pass.run(waiting, def, ledger, now);
  }

  final Pass pass = pass(QuotaConfig.DEFAULTS, def);

  /**
   * Event streams of 1 to 60 events, submissions three times as likely as each other kind. Plain
   * uniform draws, no edge cases mixed in (as before with jqwik's EdgeCasesMode.NONE: a stream of
   * identical edge events exercises nothing the uniform ones miss).
   */
  static Gen<List<Op>> events() {
    Gen<Kind> kinds =
        Gens.oneOf(Kind.SUBMIT, Kind.SUBMIT, Kind.SUBMIT, Kind.COMPLETE, Kind.PREEMPT);
    Gen<Integer> queues = integers().between(0, QUEUES.length - 1);
    Gen<Integer> gpus = integers().between(1, 12);
    Gen<Boolean> preemptible = Gens.oneOf(true, true, false);
    Gen<Integer> picks = integers().between(0, 1000);
    Gen<Integer> advance = integers().between(0, 40);
    Gen<Op> op = in -> new Op(kinds.generate(in), queues.generate(in), gpus.generate(in),
        preemptible.generate(in), picks.generate(in), advance.generate(in));
    Gen<Integer> sizes = integers().between(1, 60);
    return in -> {
      int n = sizes.generate(in);
      List<Op> ops = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        ops.add(op.generate(in));
      }
      return List.copyOf(ops);
    };
  }

  // --- guarantee first --------------------------------------------------------------------------

  @SeededProperty
  void aTenantWithDemandNeverSitsBelowItsGuaranteeWhileAnotherBorrows(Seed seed) {
    guaranteeComesFirst(seed, pass);
  }

  void guaranteeComesFirst(Seed seed, Pass pass) {
    seed.qt(300).forAll(events()).checkAssert(ops -> simulate(ops, pass, sim -> {
      for (WaitingJob w : sim.waiting) {
        QuotaNode q = queueOf(w.job());
        double freeFloor = q.guaranteedGpus() - sim.ledger.usage(q.path()).guaranteedUsed();
        if (w.job().gpuDemand() <= freeFloor + Gpus.EPS) {
          // The requirement's form: nobody borrows while this demand fits an idle floor ...
          assertThat(sim.ledger.totalBorrowed())
              .as("%s waits for %s GPUs with %s of %s's floor idle while others borrow",
                  w.job().jobId(), w.job().gpuDemand(), freeFloor, q.path())
              .isZero();
          // ... and the stronger form the admission pass delivers: such demand never waits.
          throw new AssertionError(w.job().jobId() + " fits the idle floor of " + q.path()
              + " yet still waits");
        }
      }
    }));
  }

  @Test
  void shouldCatchAPassThatForgetsAQueueFloor() {
    // broken: the pass reads a definition in which search training has no floor
    Pass forgetful = pass(QuotaConfig.DEFAULTS, withNode(def, SEARCH_TRAINING,
        n -> new QuotaNode(n.path(), n.kind(), n.lane(), 0, n.borrowCapGpus(), 0, n.weight(),
            n.preemptionGrants(), n.services())));

    // either form of the invariant may fail first; both name the queue whose floor is forgotten
    assertCatches(seed -> guaranteeComesFirst(seed, forgetful), SEARCH_TRAINING);
  }

  // --- caps, floors, fleet ----------------------------------------------------------------------

  @SeededProperty
  void noTenantExceedsItsCapItsFloorOrTheFleet(Seed seed) {
    staysWithinCapsFloorsAndFleet(seed, pass);
  }

  void staysWithinCapsFloorsAndFleet(Seed seed, Pass pass) {
    seed.qt(300).forAll(events()).checkAssert(ops -> simulate(ops, pass, sim -> {
      for (QuotaNode n : def.nodes()) {
        assertThat(sim.ledger.borrowedUnder(n.path())).as("borrowed under %s", n.path())
            .isLessThanOrEqualTo(n.borrowCapGpus() + Gpus.EPS);
      }
      for (QuotaNode q : def.queues()) {
        assertThat(sim.ledger.usage(q.path()).guaranteedUsed()).as("guaranteed use of %s", q.path())
            .isLessThanOrEqualTo(q.guaranteedGpus() + Gpus.EPS);
      }
      assertThat(sim.ledger.totalUsed()).as("fleet use")
          .isLessThanOrEqualTo(sim.ledger.fleetGpus() + Gpus.EPS);
      assertThat(SharedPool.of(def, sim.ledger).freeGpus()).as("free shared pool")
          .isGreaterThanOrEqualTo(-Gpus.EPS);
    }));
  }

  @Test
  void shouldCatchAPassThatIgnoresBorrowCaps() {
    // broken: the pass reads a definition in which no node caps its borrowing
    QuotaDefinition uncapped = def;
    for (QuotaNode n : def.nodes()) {
      uncapped = withNode(uncapped, n.path(), m -> new QuotaNode(m.path(), m.kind(), m.lane(),
          m.guaranteedGpus(), NO_CAP, m.lendLimitGpus(), m.weight(), m.preemptionGrants(),
          m.services()));
    }
    Pass capless = pass(QuotaConfig.DEFAULTS, uncapped);

    assertCatches(seed -> staysWithinCapsFloorsAndFleet(seed, capless), "borrowed under");
  }

  // --- cooldown ---------------------------------------------------------------------------------

  @SeededProperty
  void aJobInCooldownRunsOnlyOnGuaranteedQuota(Seed seed) {
    cooldownRunsOnGuaranteedQuotaOnly(seed, pass, COOLDOWN);
  }

  /**
   * The cooldown invariant: the preemption known when each verdict was made. A job admitted and
   * then reclaimed by a later verdict of the same pass was not in its cooldown when admitted.
   */
  static final Check COOLDOWN = sim -> {
    for (AdmissionVerdict v : sim.lastAdmitted) {
      Instant preempted = sim.preemptedBeforeVerdict.get(v);
      if (preempted != null && v.decidedAt().isBefore(preempted.plus(Duration.ofMinutes(30)))) {
        assertThat(v.verdict()).as("%s admitted inside its cooldown", v.jobId())
            .isEqualTo(Verdict.GUARANTEED);
      }
    }
  };

  /**
   * The cooldown check as first written (before commit 62e7860): it read each job's last
   * preemption after the whole pass, so a borrower admitted and then reclaimed by a later verdict
   * of the same pass looked admitted inside its cooldown. Kept only to show that the pinned seed
   * below still reaches that case.
   */
  static final Check COOLDOWN_READ_AFTER_THE_PASS = sim -> {
    for (AdmissionVerdict v : sim.lastAdmitted) {
      Instant preempted = sim.preemptedAt.get(v.jobId());
      if (preempted != null && v.decidedAt().isBefore(preempted.plus(Duration.ofMinutes(30)))) {
        assertThat(v.verdict()).as("%s admitted inside its cooldown", v.jobId())
            .isEqualTo(Verdict.GUARANTEED);
      }
    }
  };

  void cooldownRunsOnGuaranteedQuotaOnly(Seed seed, Pass pass, Check check) {
    seed.qt(200).forAll(events()).checkAssert(ops -> simulate(ops, pass, check));
  }

  @Test
  void shouldCatchAPassWithoutACooldown() {
    // broken: the pass was configured without the 30-minute cooldown after a preemption
    Pass noCooldown = pass(new QuotaConfig(0.70, Duration.ofDays(7), Duration.ZERO,
        "quota-rules-2"), def);

    assertCatches(seed -> cooldownRunsOnGuaranteedQuotaOnly(seed, noCooldown, COOLDOWN),
        "admitted inside its cooldown");
  }

  /**
   * A failing seed kept as a named regression example (ADR 0009). The cooldown check as first
   * written ({@link #COOLDOWN_READ_AFTER_THE_PASS}) failed on seed 1, flagging a borrower that a
   * later verdict of the same pass reclaimed; the check as it is now must hold there.
   */
  @Test
  void shouldHoldForSeed_1() {
    aJobInCooldownRunsOnlyOnGuaranteedQuota(Seed.of(1L));
  }

  /**
   * A pinned seed names an input only while the generator is unchanged: this fails when seed 1
   * no longer reaches the case it was pinned for, so the pin cannot silently lose its meaning.
   */
  @Test
  void shouldStillReachTheReclaimedBorrowerCaseWithSeed_1() {
    assertThatThrownBy(() -> Seeds.withoutShrinking(() ->
        cooldownRunsOnGuaranteedQuotaOnly(Seed.of(1L), pass, COOLDOWN_READ_AFTER_THE_PASS)))
        .hasMessageContaining("admitted inside its cooldown")
        .hasMessageContaining("Seed was 1");
  }

  // --- the model --------------------------------------------------------------------------------

  QuotaNode queueOf(JobRequest j) {
    return def.queue(j.tenant(), j.team(), j.workloadClass().lane()).orElseThrow();
  }

  interface Check {
    void after(Sim sim);
  }

  /** The quota service in miniature: the state a property inspects after every step. */
  static final class Sim {
    QuotaLedger ledger = QuotaTestKit.ledger();
    List<WaitingJob> waiting = new ArrayList<>();
    final TreeMap<String, JobRequest> running = new TreeMap<>();
    final Map<String, Instant> preemptedAt = new TreeMap<>();
    List<AdmissionVerdict> lastAdmitted = List.of();
    /** Per admitting verdict (by identity), the job's last preemption known when it was made. */
    final Map<AdmissionVerdict, Instant> preemptedBeforeVerdict = new java.util.IdentityHashMap<>();
  }

  void simulate(List<Op> ops, Pass pass, Check check) {
    Sim sim = new Sim();
    Instant now = T0;
    int n = 0;
    for (Op op : ops) {
      now = now.plus(Duration.ofMinutes(op.advanceMinutes()));
      switch (op.kind()) {
        case SUBMIT -> sim.waiting.add(WaitingJob.fresh(submission("j" + n++, op, now)));
        case COMPLETE -> {
          if (!sim.running.isEmpty()) {
            String id = new ArrayList<>(sim.running.keySet()).get(op.pick() % sim.running.size());
            sim.ledger = sim.ledger.release(id, now);
            sim.running.remove(id);
          }
        }
        case PREEMPT -> {
          List<String> borrowers = sim.ledger.allocations().stream()
              .filter(Allocation::borrowing).map(Allocation::jobId).toList();
          if (!borrowers.isEmpty()) {
            String id = borrowers.get(op.pick() % borrowers.size());
            sim.ledger = sim.ledger.preempt(id, now);
            sim.preemptedAt.put(id, now);
            sim.waiting.add(new WaitingJob(sim.running.remove(id), now));
          }
        }
      }
      settle(sim, pass, now);
      check.after(sim);
    }
  }

  /** Runs admission passes until no reclaimed borrower is left to requeue. */
  void settle(Sim sim, Pass pass, Instant now) {
    List<AdmissionVerdict> admitted = new ArrayList<>();
    sim.preemptedBeforeVerdict.clear();
    boolean reclaimed = true;
    while (reclaimed) {
      Map<String, Instant> known = new TreeMap<>(sim.preemptedAt);
      AdmissionPass.Result r = pass.run(sim.waiting, sim.ledger, now);
      sim.ledger = r.ledger();
      Map<String, WaitingJob> byId = new TreeMap<>();
      sim.waiting.forEach(w -> byId.put(w.job().jobId(), w));
      List<WaitingJob> still = new ArrayList<>();
      reclaimed = false;
      for (AdmissionVerdict v : r.verdicts()) {
        if (v.admitted()) {
          for (String victim : v.reclaimJobIds()) {
            sim.preemptedAt.put(victim, now);
            still.add(new WaitingJob(sim.running.remove(victim), now));
            reclaimed = true;
          }
          sim.running.put(v.jobId(), byId.get(v.jobId()).job());
          admitted.add(v);
          if (known.containsKey(v.jobId())) {
            sim.preemptedBeforeVerdict.put(v, known.get(v.jobId()));
          }
        } else if (v.verdict() == Verdict.QUEUED) {
          still.add(byId.get(v.jobId()));
        }
      }
      sim.waiting = still;
    }
    sim.lastAdmitted = admitted;
  }

  static JobRequest submission(String id, Op op, Instant now) {
    QuotaTestKit.JobBuilder b = job(id).gpus(op.gpus()).submittedAt(now);
    switch (op.queue()) {
      case 1 -> b.online("ranker");
      case 2 -> b.ads();
      case 3 -> b.ads().batch();
      default -> { }
    }
    if (!op.preemptible()) {
      b.nonPreemptible();
    }
    return b.build();
  }

  /** {@code def} with the node at {@code path} replaced by {@code change} of it. */
  static QuotaDefinition withNode(QuotaDefinition def, String path,
      java.util.function.UnaryOperator<QuotaNode> change) {
    return QuotaDefinition.of(def.version() + "-broken", def.nodes().stream()
        .map(n -> n.path().equals(path) ? change.apply(n) : n).toList());
  }
}
