package io.tideline.core.quota;

import io.tideline.core.trace.TraceEntry;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Decides a submitted job's quota tier (requirements Q2, Q3, Q6, W4, P3): GUARANTEED on its queue's
 * floor, SHARED on borrowed pool capacity, QUEUED with what would unblock it, or REJECTED. The right
 * to preempt is read from the definition's entitlements, never from the submitter. A guaranteed job
 * always gets its floor: if borrowers hold the capacity, the verdict names the borrowers to reclaim.
 */
public final class QuotaAdmission {

  private final QuotaConfig config;

  public QuotaAdmission(QuotaConfig config) {
    this.config = config;
  }

  /**
   * The verdict for one submission.
   *
   * @param job the submission (already checked well-formed by {@code SubmissionCheck})
   * @param lastPreemptedAt when this job was last preempted, or {@code null} (P3 cooldown)
   * @param def the quota definition in force
   * @param ledger the current usage
   * @param now event time of the decision
   */
  public AdmissionVerdict decide(JobRequest job, Instant lastPreemptedAt, QuotaDefinition def,
      QuotaLedger ledger, Instant now) {
    Decision d = new Decision(job, def, now);
    // 1. Resolve tenant → team → lane queue (Q2, Q6).
    Optional<QuotaNode> resolved = resolve(d);
    if (resolved.isEmpty()) {
      return d.verdict;
    }
    QuotaNode queue = resolved.get();
    d.queue = queue.path();
    if (ledger.allocation(job.jobId()).isPresent()) {
      return d.reject("job already admitted", "Q2 admission", "job " + job.jobId()
          + " already holds quota in " + ledger.allocation(job.jobId()).get().queue());
    }
    // 2. W4: a requested preemption right must be granted by the definition.
    if (job.preemptionRight()) {
      Set<PreemptionGrant> grants = def.grants(queue.path());
      String why = entitlement(job, grants);
      if (why == null) {
        return d.reject("preemption right not entitled", "W4 preemption entitlement",
            "requested by a " + job.workloadClass() + (job.critical() ? " critical" : "")
                + " job; " + queue.path() + " grants " + grants);
      }
      d.rightGranted = true;
      d.trace(job.jobId(), "W4 preemption entitlement", "granted", why);
    }
    double demand = job.gpuDemand();
    if (job.gpuless()) {
      // ADR 0030: CPU, memory and extended resources are not a quota dimension (Q1–Q4 are in
      // GPUs); a job without GPUs is admitted on its queue and charged nothing
      return d.admit(Verdict.GUARANTEED, 0, 0, List.of(), "asks no GPU: CPU, memory and "
          + "extended resources are not charged to " + d.queue + " (ADR 0030)");
    }
    if (!(demand > 0)) {
      return d.reject("no GPU demand", "Q2 admission", "demand " + demand + " must be positive");
    }
    // 3. Guarantee first (Q3): fits in the queue's unused floor → GUARANTEED.
    QueueUsage use = ledger.usage(queue.path());
    double freeFloor = Math.max(0, Gpus.snap(queue.guaranteedGpus() - use.guaranteedUsed()));
    String floorDetail = "demand " + Gpus.fmt(demand) + ", floor " + Gpus.fmt(queue.guaranteedGpus())
        + ", used " + Gpus.fmt(use.guaranteedUsed()) + ", free " + Gpus.fmt(freeFloor);
    if (Gpus.le(demand, freeFloor)) {
      d.trace(queue.path(), "Q2 guaranteed floor", "fits", floorDetail);
      return guaranteed(d, def, ledger, demand);
    }
    d.trace(queue.path(), "Q2 guaranteed floor", "exceeded", floorDetail);
    // 4. P3 cooldown: a recently preempted job may only run on guaranteed quota.
    if (lastPreemptedAt != null) {
      Instant until = lastPreemptedAt.plus(config.preemptionCooldown());
      if (now.isBefore(until)) {
        return d.queued("cooldown until " + until, "P3 cooldown",
            "preempted at " + lastPreemptedAt + ", guaranteed quota only for "
                + config.preemptionCooldown(),
            Gpus.fmt(demand - freeFloor) + " GPUs of " + queue.path()
                + "'s guarantee released, or the cooldown ending at " + until);
      }
      d.trace(job.jobId(), "P3 cooldown", "over", "ended " + until);
    }
    // 5. W4: a job declared non-preemptible never runs on borrowed (preemptible) capacity —
    //    except online inference, which Q3 lets borrow the shared pool above its locked guarantee
    //    (ADR 0007): its guaranteed replicas are never interrupted, a replica beyond the guarantee
    //    is pool work, preemptible under the published rules like any borrower.
    if (!job.preemptible() && job.workloadClass() == WorkloadClass.ONLINE_INFERENCE) {
      d.trace(job.jobId(), "Q3 online borrows the shared pool", "allowed", "declared"
          + " non-preemptible, but online inference beyond its locked guarantee borrows the shared"
          + " pool; the borrowed replica is preemptible (floor reclaim, or a preemptor scoring"
          + " above the threshold)");
    } else if (!job.preemptible()) {
      String unblock = demand > queue.guaranteedGpus() + Gpus.EPS
          ? "a floor of at least " + Gpus.fmt(demand) + " for " + queue.path()
              + " (now " + Gpus.fmt(queue.guaranteedGpus()) + "), or resubmitting as preemptible"
          : Gpus.fmt(demand - freeFloor) + " GPUs of " + queue.path() + "'s guarantee released";
      return d.queued("declared non-preemptible: needs guaranteed quota", "W4 non-preemptible",
          "borrowed capacity is preemptible; " + floorDetail, unblock);
    }
    // 6. Borrow the rest (Q3), within the cap of the queue and of every ancestor.
    double borrow = Gpus.snap(demand - freeFloor);
    for (QuotaNode n : def.ancestry(queue.path())) {
      double borrowed = ledger.borrowedUnder(n.path());
      String capDetail = "borrowed " + Gpus.fmt(borrowed) + " + " + Gpus.fmt(borrow) + " vs cap "
          + Gpus.fmt(n.borrowCapGpus());
      if (!Gpus.le(borrowed + borrow, n.borrowCapGpus())) {
        return d.queued("borrowing cap of " + n.path() + " reached", "Q3 borrowing cap", capDetail,
            Gpus.fmt(borrowed + borrow - n.borrowCapGpus()) + " GPUs of borrowing released under "
                + n.path());
      }
      d.trace(n.path(), "Q3 borrowing cap", "within", capDetail);
    }
    // 7. The shared pool must have room once this queue's free floor is consumed.
    SharedPool pool = SharedPool.ifAdmitted(def, ledger, queue.path(), freeFloor, borrow);
    double usedAfter = ledger.totalUsed() + demand;
    String poolDetail = "borrowable " + Gpus.fmt(pool.borrowableGpus()) + " (pool "
        + Gpus.fmt(pool.poolGpus()) + " + lendable " + Gpus.fmt(pool.lendableGpus())
        + "), borrowed " + Gpus.fmt(ledger.totalBorrowed()) + " + " + Gpus.fmt(borrow);
    if (pool.freeGpus() < -Gpus.EPS || usedAfter > ledger.fleetGpus() + Gpus.EPS) {
      return d.queued("shared pool contended", "Q3 shared pool", poolDetail,
          Gpus.fmt(-Math.min(pool.freeGpus(), ledger.fleetGpus() - usedAfter))
              + " GPUs freed in the shared pool (waiting queues are served in fair-share order)");
    }
    d.trace(queue.path(), "Q3 shared pool", "borrowed", poolDetail);
    return d.admit(Verdict.SHARED, freeFloor, borrow, List.of(),
        "borrows " + Gpus.fmt(borrow) + " GPUs beyond its guarantee: preemptible");
  }

  /** GUARANTEED, reclaiming borrowers if the floor's capacity is lent out (Q3: floor first). */
  private AdmissionVerdict guaranteed(Decision d, QuotaDefinition def, QuotaLedger ledger,
      double demand) {
    String jobId = d.job.jobId();
    List<String> victims = new ArrayList<>();
    SharedPool ifAdmitted = SharedPool.ifAdmitted(def, ledger, d.queue, demand, 0);
    if (ifAdmitted.freeGpus() >= -Gpus.EPS
        && ledger.totalUsed() + demand <= ledger.fleetGpus() + Gpus.EPS) {
      return d.admit(Verdict.GUARANTEED, demand, 0, victims,
          "within the guarantee of " + d.queue + ": non-preemptible");
    }
    QuotaLedger l = ledger.admit(new Allocation(jobId, d.queue, demand, 0, d.now));
    // Reclaim: while borrowers hold more than may be lent, preempt the biggest queue's youngest.
    while (overdrawn(def, l)) {
      QuotaLedger current = l;
      Optional<Allocation> victim = l.allocations().stream()
          .filter(a -> a.borrowing() && !a.jobId().equals(jobId))
          .min(Comparator
              .comparingDouble((Allocation a) -> -current.usage(a.queue()).borrowedUsed())
              .thenComparing(Allocation::admittedAt, Comparator.reverseOrder())
              .thenComparing(Allocation::jobId));
      if (victim.isEmpty()) {
        return d.queued("fleet overcommitted", "Q1 segments",
            "queue floors " + Gpus.fmt(def.queueFloorSum()) + " exceed the fleet of "
                + Gpus.fmt(ledger.fleetGpus()) + " and no borrower is left to reclaim",
            "capacity added or floors reduced to fit the fleet");
      }
      Allocation v = victim.get();
      d.trace(v.jobId(), "Q3 reclaim for guarantee", "preempt",
          v.queue() + " borrows " + Gpus.fmt(current.usage(v.queue()).borrowedUsed())
              + "; job holds " + Gpus.fmt(v.gpus()) + " GPUs (" + Gpus.fmt(v.borrowedGpus())
              + " borrowed), admitted " + v.admittedAt());
      victims.add(v.jobId());
      l = l.preempt(v.jobId(), d.now);
    }
    return d.admit(Verdict.GUARANTEED, demand, 0, victims,
        "within the guarantee of " + d.queue + ": non-preemptible"
            + (victims.isEmpty() ? "" : ", reclaiming " + victims.size() + " borrowing job(s)"));
  }

  private static boolean overdrawn(QuotaDefinition def, QuotaLedger l) {
    return SharedPool.of(def, l).freeGpus() < -Gpus.EPS
        || l.totalUsed() > l.fleetGpus() + Gpus.EPS;
  }

  private static Optional<QuotaNode> resolve(Decision d) {
    JobRequest job = d.job;
    if (d.def.businessLine(job.tenant()).isEmpty()) {
      d.reject("unknown tenant '" + job.tenant() + "'", "Q2 hierarchy",
          "no business line '" + job.tenant() + "' under "
              + d.def.root().map(QuotaNode::path).orElse("<no root>"));
      return Optional.empty();
    }
    if (d.def.team(job.tenant(), job.team()).isEmpty()) {
      d.reject("unknown team '" + job.team() + "'", "Q2 hierarchy",
          "no team '" + job.team() + "' in business line '" + job.tenant() + "'");
      return Optional.empty();
    }
    WorkloadClass.Lane lane = job.workloadClass().lane();
    Optional<QuotaNode> q = d.def.queue(job.tenant(), job.team(), lane);
    if (q.isEmpty()) {
      d.reject("no " + lane + " queue", "Q6 lanes",
          "team '" + job.tenant() + "/" + job.team() + "' has no " + lane + " queue for a "
              + job.workloadClass() + " job");
      return Optional.empty();
    }
    d.trace(job.jobId(), "Q6 lanes", "queue " + q.get().path(),
        job.workloadClass() + " waits in the " + lane + " lane");
    return q;
  }

  /** Why the definition grants the job its requested right, or {@code null} if it does not. */
  private static String entitlement(JobRequest job, Set<PreemptionGrant> grants) {
    if (grants.contains(PreemptionGrant.BUSINESS_LEVEL)) {
      return "business level entitled to preempt";
    }
    if (grants.contains(PreemptionGrant.ONLINE_INFERENCE)
        && job.workloadClass() == WorkloadClass.ONLINE_INFERENCE) {
      return "online inference entitled to preempt";
    }
    if (grants.contains(PreemptionGrant.CRITICAL_JOBS) && job.critical()) {
      return "critical job entitled to preempt";
    }
    return null;
  }

  /** The decision under construction: its trace and the verdict once reached. */
  private final class Decision {
    final JobRequest job;
    final QuotaDefinition def;
    final Instant now;
    final List<TraceEntry> trace = new ArrayList<>();
    String queue;
    boolean rightGranted;
    AdmissionVerdict verdict;

    Decision(JobRequest job, QuotaDefinition def, Instant now) {
      this.job = job;
      this.def = def;
      this.now = now;
    }

    void trace(String subject, String rule, String outcome, String detail) {
      trace.add(new TraceEntry(subject, rule, outcome, detail));
    }

    AdmissionVerdict reject(String reason, String rule, String detail) {
      trace(job.jobId(), rule, "rejected", detail);
      return finish(Verdict.REJECTED, 0, 0, List.of(), reason, "");
    }

    AdmissionVerdict queued(String reason, String rule, String detail, String unblock) {
      trace(queue == null ? job.jobId() : queue, rule, "queued", detail);
      return finish(Verdict.QUEUED, 0, 0, List.of(), reason, unblock);
    }

    AdmissionVerdict admit(Verdict v, double guaranteed, double borrowed, List<String> reclaim,
        String reason) {
      return finish(v, guaranteed, borrowed, reclaim, reason, "");
    }

    private AdmissionVerdict finish(Verdict v, double guaranteed, double borrowed,
        List<String> reclaim, String reason, String unblock) {
      verdict = new AdmissionVerdict(job.jobId(), queue, v, Gpus.snap(guaranteed),
          Gpus.snap(borrowed), reclaim, rightGranted && (v == Verdict.GUARANTEED
              || v == Verdict.SHARED), reason, unblock, trace,
          config.rulesVersion() + "/" + def.version(), now);
      return verdict;
    }
  }
}
