package io.tideline.core.scheduling;

import io.tideline.core.cluster.Allocation;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.TopologyLevel;
import io.tideline.core.cluster.state.Admission;
import io.tideline.core.cluster.state.Hold;
import io.tideline.core.cluster.state.JobFacts;
import io.tideline.core.fragmentation.DemandHistogram;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass.Lane;
import io.tideline.core.placement.CompensationBoost;
import io.tideline.core.placement.DemandMix;
import io.tideline.core.placement.FairShare;
import io.tideline.core.placement.NodeScoring;
import io.tideline.core.placement.PlacementDecision;
import io.tideline.core.placement.Placer;
import io.tideline.core.placement.QueueOrder;
import io.tideline.core.placement.QueuedJob;
import io.tideline.core.placement.QuotaRank;
import io.tideline.core.placement.UnplaceableReason;
import io.tideline.core.quota.Verdict;
import io.tideline.core.scheduling.PlacementEffect.Outcome;
import io.tideline.core.scheduling.PlacementEffect.RequestTrigger;
import io.tideline.core.trace.TraceEntry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeSet;

/**
 * The queue and the placement pass (Q6, W3, W4, T3, P5).
 *
 * <p><b>Who waits</b> ({@link #waiting}): a submitted job quota admitted (GUARANTEED or SHARED)
 * that does not run, has no hold of its own, is not parked, not retired, whose verdict is not
 * older than its last preemption (after a preemption quota must decide again: P3 cooldown), and
 * that asks no more GPUs than the verdict admitted.
 *
 * <p><b>The pass</b> ({@link #run}): lanes are offered in {@link QueueOrder} of their heads;
 * inside a lane jobs are tried in queue order, and a lane stops for this cycle after
 * {@link PlacementPolicy#maxFailuresPerLane()} refusals. A job whose shape is at least that of a
 * job that already failed in this pass (same models, service and preemptibility, whole GPUs, no
 * node count, not GPU-less) is not tried again — nothing placed since freed GPUs — and fails
 * for the same reason.
 *
 * <p><b>What follows a refusal</b> ({@link #refused}), in order:
 * <ol>
 *   <li>no node can ever take the job (INVALID_SHAPE, NO_MATCHING_GPU_MODEL): QUEUED with the
 *       reason once, parked until the fleet changes;</li>
 *   <li>FRAGMENTED: one passive defragmentation plan per pass, once per job and ledger version,
 *       at most one per {@link PlacementPolicy#passiveDefragInterval()} and only with T4 budget
 *       ({@link DefragRules#passive}); the job is held for the GPUs the plan unlocks;</li>
 *   <li>a job with the right to preempt (W4, {@link PlacementPolicy#rights()}) asks preemption,
 *       unless it is GPU-less (ADR 0030: preemption frees GPUs, and GPU-less pods are not
 *       charged to quota, so they wait for CPU or memory rather than evict anyone),
 *       at most {@link PlacementPolicy#maxPreemptionRequestsPerCycle()} new requests per cycle,
 *       once per open request and not again at the version a refusal was made on; the request
 *       carries placement's estimate of its wait (P5);</li>
 *   <li>otherwise QUEUED with the placer's trace, once per wait.</li>
 * </ol>
 */
final class QueuePass {

  private static final double EPS = 1e-9;

  private final PlacementPolicy policy;
  private final Placer placer;
  private final DefragRules defrag;
  private final StartEstimator estimator;

  QueuePass(PlacementPolicy policy, Placer placer, DefragRules defrag) {
    this.policy = policy;
    this.placer = placer;
    this.defrag = defrag;
    this.estimator = new StartEstimator(policy);
  }

  Placer placer() {
    return placer;
  }

  // ------------------------------------------------------------------------------ the queue

  /** Whether {@code id} waits in its lane now (see the class rules); {@code null} if not. */
  QueuedJob waiting(Cycle c, String id) {
    Admission a = c.cluster.admission(id);
    if (a == null || !a.admitted() || c.cluster.runs(id)
        || c.cluster.holds().has(Hold.holdOf(id))) {
      return null;
    }
    QueueMark m = c.mark(id);
    if (m.parked() || m.retired()) {
      return null;
    }
    JobFacts f = c.cluster.factsOf(id);
    if (f.lastPreemptedAt() != null && a.decidedAt().isBefore(f.lastPreemptedAt())) {
      return null; // P3: after a preemption, quota decides again
    }
    JobRequest job = c.request(id);
    if (job == null || job.gpuDemand() > a.gpus() + EPS) {
      return null;
    }
    return new QueuedJob(job, new QuotaRank(a.verdict() == Verdict.GUARANTEED ? 0 : 1,
        a.verdict().name()), new FairShare(a.fairShareUsage()),
        new CompensationBoost(m.boost()));
  }

  /** The lanes as they stand: waiting jobs in queue order. */
  Map<Lane, List<QueuedJob>> lanes(Cycle c) {
    EnumMap<Lane, List<QueuedJob>> out = new EnumMap<>(Lane.class);
    for (Lane l : Lane.values()) {
      out.put(l, new ArrayList<>());
    }
    for (String id : c.cluster.admissions().ids()) {
      QueuedJob q = waiting(c, id);
      if (q != null) {
        out.get(q.job().workloadClass().lane()).add(q);
      }
    }
    out.values().forEach(l -> l.sort(QueueOrder.INSTANCE));
    return out;
  }

  /** Waiting jobs plus running ones: the demand fragmentation is measured against (T2). */
  DemandHistogram demand(Cycle c) {
    return demand(c, lanes(c));
  }

  /** {@link #demand(Cycle)} for lanes already built. */
  DemandHistogram demand(Cycle c, Map<Lane, List<QueuedJob>> lanes) {
    List<JobRequest> jobs = demanded(c, lanes);
    int max = c.snap().topology().maxGpusPerNode();
    return jobs.isEmpty() ? DemandHistogram.wholeNode(max) : DemandHistogram.of(jobs, max);
  }

  /**
   * The mix the fragmentation rule measures against in this pass (ADR 0038): with a live
   * {@link NodeScoring}, the shapes of the jobs waiting and running now; otherwise the
   * configured one.
   */
  DemandMix expected(Cycle c, Map<Lane, List<QueuedJob>> lanes) {
    NodeScoring s = placer.config().scoring();
    return s.liveMix() ? DemandMix.of(demanded(c, lanes), s.liveShapes()) : s.mix();
  }

  /** Waiting jobs plus running ones. */
  private static List<JobRequest> demanded(Cycle c, Map<Lane, List<QueuedJob>> lanes) {
    List<JobRequest> jobs = new ArrayList<>();
    lanes.values().forEach(l -> l.forEach(q -> jobs.add(q.job())));
    c.snap().allocations().values().forEach(a -> jobs.add(a.job()));
    return jobs;
  }

  /** Admitted jobs whose verdict allows fewer GPUs than they ask: QUEUED with the reason, once. */
  private void overAsks(Cycle c) {
    for (String id : c.cluster.admissions().ids()) {
      Admission a = c.cluster.admission(id);
      JobRequest job = c.request(id);
      QueueMark m = c.mark(id);
      if (a.admitted() && job != null && !c.cluster.runs(id) && !m.announced()
          && job.gpuDemand() > a.gpus() + EPS) {
        c.mark(id, m.withAnnounced(true));
        c.queued(id, List.of(new TraceEntry(id, "Q1 admitted GPUs", "refused", String.format(
            Locale.ROOT, "the verdict admitted %.2f GPU(s), the job asks %.2f: placement never "
                + "places more than quota admitted", a.gpus(), job.gpuDemand()))));
      }
    }
  }

  // ------------------------------------------------------------------------------ the pass

  void run(Cycle c) {
    overAsks(c);
    Map<Lane, List<QueuedJob>> lanes = lanes(c);
    List<Lane> order = new ArrayList<>();
    for (Lane l : Lane.values()) {
      if (!lanes.get(l).isEmpty()) {
        order.add(l);
      }
    }
    order.sort(Comparator.comparing(l -> lanes.get(l).get(0), QueueOrder.INSTANCE));
    DemandMix expected = expected(c, lanes);
    Pass p = new Pass();
    for (Lane lane : order) {
      int failures = 0;
      for (QueuedJob q : lanes.get(lane)) {
        if (failures >= policy.maxFailuresPerLane()) {
          break;
        }
        String id = q.job().jobId();
        if (waiting(c, id) == null) {
          continue; // held or placed earlier in this cycle
        }
        Failure dominant = p.dominating(q.job());
        PlacementDecision d = dominant != null ? dominated(c, q.job(), dominant)
            : placer.decide(c.now, c.snap(), q.job(), expected);
        if (d.placed()) {
          bind(c, q.job(), d.assignments(), d.workers(), d.level(), d.crossDomain(), d.score(),
              d.trace());
          continue;
        }
        failures++;
        if (dominant == null) {
          p.failed(q.job(), d);
        }
        refused(c, q, d, p, dominant != null);
      }
    }
  }

  /** What one pass remembers: failed shapes, and whether a plan or requests were spent. */
  private static final class Pass {
    final List<Failure> failures = new ArrayList<>();
    boolean defragOffered;
    int requests;

    Failure dominating(JobRequest j) {
      if (j.gpuless() || j.fractional() || j.nodes() != 0) {
        return null;
      }
      int piece = DemandHistogram.shapeOf(j);
      for (Failure f : failures) {
        if (piece >= f.piece && j.gpuCount() >= f.gpus && j.allowedGpuModels().equals(f.models)
            && Objects.equals(j.serviceId(), f.service) && j.preemptible() == f.preemptible) {
          return f;
        }
      }
      return null;
    }

    void failed(JobRequest j, PlacementDecision d) {
      if (!j.gpuless() && !j.fractional() && j.nodes() == 0) {
        failures.add(new Failure(j.jobId(), DemandHistogram.shapeOf(j), j.gpuCount(),
            j.allowedGpuModels(), j.serviceId(), j.preemptible(), d.reason()));
      }
    }
  }

  private record Failure(String jobId, int piece, int gpus, List<String> models, String service,
      boolean preemptible, UnplaceableReason reason) {}

  private static PlacementDecision dominated(Cycle c, JobRequest job, Failure f) {
    return new PlacementDecision(job.jobId(), c.version(), false, List.of(), f.reason(), null,
        false, 0, List.of(new TraceEntry(job.jobId(), "W3 gang shape", "not tried", "a job of "
            + "no larger shape (" + f.jobId() + ", " + f.gpus() + " GPU(s)) could not be placed "
            + "in this pass (" + f.reason() + ") and nothing was freed since")));
  }

  /** See the class rules: what follows a refusal. */
  private void refused(Cycle c, QueuedJob q, PlacementDecision d, Pass p, boolean dominated) {
    String id = q.job().jobId();
    UnplaceableReason r = d.reason();
    if (r == UnplaceableReason.INVALID_SHAPE || r == UnplaceableReason.NO_MATCHING_GPU_MODEL) {
      announce(c, id, d.trace());
      c.mark(id, c.mark(id).withParked(true)); // offered again when the fleet changes
      return;
    }
    if (r == UnplaceableReason.FRAGMENTED && !dominated && !p.defragOffered
        && c.mark(id).defragTriedAt() != c.version() && defrag.passiveDue(c)) {
      c.mark(id, c.mark(id).withDefragTriedAt(c.version()));
      if (defrag.passive(c, q.job())) {
        p.defragOffered = true;
        p.failures.clear(); // the layout changed: earlier failures prove nothing any more
        return;
      }
    }
    if (mayPreempt(q.job()) && p.requests < policy.maxPreemptionRequestsPerCycle()) {
      if (requestPreemption(c, q, d)) {
        p.requests++;
      }
      return;
    }
    announce(c, id, d.trace());
  }

  private boolean mayPreempt(JobRequest job) {
    if (job.gpuless()) {
      return false;
    }
    return switch (policy.rights()) {
      case QUOTA -> job.preemptionRight();
      case EVERY_JOB -> true;
      case NONE -> false;
    };
  }

  /** One QUEUED decision per wait. */
  void announce(Cycle c, String id, List<TraceEntry> trace) {
    QueueMark m = c.mark(id);
    if (!m.announced()) {
      c.mark(id, m.withAnnounced(true));
      c.queued(id, trace);
    }
  }

  /** Asks preemption for room; returns whether a new request was sent. */
  private boolean requestPreemption(Cycle c, QueuedJob q, PlacementDecision d) {
    String id = q.job().jobId();
    PendingRequest p = c.pending.get(id);
    if (p != null && (p.status() == PendingRequest.Status.OPEN
        || (p.status() == PendingRequest.Status.REFUSED && p.version() == c.version()))) {
      announce(c, id, d.trace());
      return false;
    }
    String requestId = policy.cluster() + "/preempt/" + id + "/v" + c.version();
    long wait = estimator.expectedWaitSeconds(c, q, this);
    c.effects.add(new PlacementEffect.RequestPreemption(requestId, id,
        q.job().workloadClass(), q.job(), RequestTrigger.UNPLACEABLE, c.version(), c.now, null,
        null, Map.of(), wait));
    c.pending = c.pending.put(c.journal, id, new PendingRequest(requestId, c.version(),
        PendingRequest.Status.OPEN, null));
    List<TraceEntry> trace = new ArrayList<>(d.trace());
    trace.add(new TraceEntry(id, "W4 preemption right", "requested", "unplaceable ("
        + d.reason() + ") and allowed to preempt (" + policy.rights() + "); expected wait "
        + (wait < 0 ? "unknown" : wait + " s") + "; request " + requestId));
    c.mark(id, c.mark(id).withAnnounced(true));
    c.decide(id, Outcome.PREEMPTION_REQUESTED, List.of(), null, false, 0, trace);
    return true;
  }

  // ------------------------------------------------------------------------------ ledger changes

  /** Binds a job to GPUs: PLACED, the wait is over. */
  void bind(Cycle c, JobRequest job, List<GpuAssignment> assignments, TopologyLevel level,
      boolean crossDomain, double score, List<TraceEntry> trace) {
    bind(c, job, assignments, null, level, crossDomain, score, trace);
  }

  /** Binds a job to GPUs, or a GPU-less job's pods to {@code workers}: PLACED. */
  void bind(Cycle c, JobRequest job, List<GpuAssignment> assignments,
      SortedMap<String, Integer> workers, TopologyLevel level, boolean crossDomain, double score,
      List<TraceEntry> trace) {
    String id = job.jobId();
    c.bind(id, assignments, workers);
    c.mark(id, c.mark(id).withAnnounced(false).withDefragTriedAt(-1));
    c.pending = c.pending.remove(c.journal, id);
    c.decide(id, Outcome.PLACED, assignments, level, crossDomain, score, trace, workers);
  }

  /** A hold's wait is over: the hold goes and its job is bound to the held GPUs if they are free. */
  void resolve(Cycle c, Hold h, String why) {
    c.dropHold(h.id());
    String id = h.holder();
    if (id.isEmpty() || !c.cluster.knows(id) || c.cluster.runs(id)) {
      return;
    }
    JobRequest job = c.request(id);
    try {
      c.snap().withAllocation(new Allocation(job, h.assignments()));
    } catch (IllegalArgumentException e) {
      return; // the held GPUs are not free after all: the job queues normally
    }
    TopologyLevel level = c.levelOf(h.assignments());
    bind(c, job, h.assignments(), level, level.crossesSwitchDomain(),
        Math.pow(1 - policy.placement().crossSwitchSlowdown(), level.switchTiersCrossed()),
        List.of(new TraceEntry(h.id(), "hold resolved", "bound", why + "; the GPUs held by "
            + h.decisionId() + " are now the job's")));
  }

  /** Job ids of {@code as}, for traces. */
  static String gpus(List<GpuAssignment> as) {
    TreeSet<String> s = new TreeSet<>();
    as.forEach(a -> s.add(a.gpu().toString()));
    return s.toString();
  }
}
