package io.tideline.core.quota;

import static io.tideline.core.quota.QuotaTestKit.ADS_BATCH;
import static io.tideline.core.quota.QuotaTestKit.ADS_TRAINING;
import static io.tideline.core.quota.QuotaTestKit.SEARCH_INFERENCE;
import static io.tideline.core.quota.QuotaTestKit.SEARCH_TRAINING;
import static io.tideline.core.quota.QuotaTestKit.T0;
import static io.tideline.core.quota.QuotaTestKit.job;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.model.JobRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random sequences of submissions, completions and preemptions of borrowers, each followed by the
 * admission passes the quota service would run; after every step the quota invariants must hold.
 */
class QuotaInvariantsTest {

  enum Kind { SUBMIT, COMPLETE, PREEMPT }

  /** One event: what happens, to which queue / running job, how big, and how much time passes. */
  record Op(Kind kind, int queue, int gpus, boolean preemptible, int pick, int advanceMinutes) {}

  static final String[] QUEUES = {SEARCH_TRAINING, SEARCH_INFERENCE, ADS_TRAINING, ADS_BATCH};

  final QuotaDefinition def = QuotaTestKit.standard();
  final AdmissionPass pass = new AdmissionPass(QuotaConfig.DEFAULTS);

  @Provide
  Arbitrary<List<Op>> events() {
    Arbitrary<Op> op = Combinators.combine(
        Arbitraries.of(Kind.SUBMIT, Kind.SUBMIT, Kind.SUBMIT, Kind.COMPLETE, Kind.PREEMPT),
        Arbitraries.integers().between(0, QUEUES.length - 1),
        Arbitraries.integers().between(1, 12),
        Arbitraries.of(true, true, false),
        Arbitraries.integers().between(0, 1000),
        Arbitraries.integers().between(0, 40))
        .as(Op::new);
    return op.list().ofMinSize(1).ofMaxSize(60);
  }

  @Property(tries = 300, edgeCases = EdgeCasesMode.NONE)
  void aTenantWithDemandNeverSitsBelowItsGuaranteeWhileAnotherBorrows(
      @ForAll("events") List<Op> ops) {
    simulate(ops, (sim) -> {
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
    });
  }

  @Property(tries = 300, edgeCases = EdgeCasesMode.NONE)
  void noTenantExceedsItsCapItsFloorOrTheFleet(@ForAll("events") List<Op> ops) {
    simulate(ops, (sim) -> {
      for (QuotaNode n : def.nodes()) {
        assertThat(sim.ledger.borrowedUnder(n.path())).as("borrowed under %s", n.path())
            .isLessThanOrEqualTo(n.borrowCapGpus() + Gpus.EPS);
      }
      for (QuotaNode q : def.queues()) {
        assertThat(sim.ledger.usage(q.path()).guaranteedUsed()).as("guaranteed use of %s", q.path())
            .isLessThanOrEqualTo(q.guaranteedGpus() + Gpus.EPS);
      }
      assertThat(sim.ledger.totalUsed()).isLessThanOrEqualTo(sim.ledger.fleetGpus() + Gpus.EPS);
      assertThat(SharedPool.of(def, sim.ledger).freeGpus()).isGreaterThanOrEqualTo(-Gpus.EPS);
    });
  }

  @Property(tries = 200, edgeCases = EdgeCasesMode.NONE)
  void aJobInCooldownRunsOnlyOnGuaranteedQuota(@ForAll("events") List<Op> ops) {
    simulate(ops, (sim) -> {
      for (AdmissionVerdict v : sim.lastAdmitted) {
        // the preemption known when the verdict was made: a job admitted and then reclaimed by a
        // later verdict of the same pass was not in its cooldown when it was admitted
        Instant preempted = sim.preemptedBeforeVerdict.get(v);
        if (preempted != null && v.decidedAt().isBefore(preempted.plus(Duration.ofMinutes(30)))) {
          assertThat(v.verdict()).as("%s admitted inside its cooldown", v.jobId())
              .isEqualTo(Verdict.GUARANTEED);
        }
      }
    });
  }

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

  void simulate(List<Op> ops, Check check) {
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
      settle(sim, now);
      check.after(sim);
    }
  }

  /** Runs admission passes until no reclaimed borrower is left to requeue. */
  void settle(Sim sim, Instant now) {
    List<AdmissionVerdict> admitted = new ArrayList<>();
    sim.preemptedBeforeVerdict.clear();
    boolean reclaimed = true;
    while (reclaimed) {
      Map<String, Instant> known = new TreeMap<>(sim.preemptedAt);
      AdmissionPass.Result r = pass.run(sim.waiting, def, sim.ledger, now);
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
}
