package io.tideline.core.preemption.kernel;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.state.Admission;
import io.tideline.core.cluster.state.Binding;
import io.tideline.core.cluster.state.ClusterFact;
import io.tideline.core.cluster.state.ClusterState;
import io.tideline.core.cluster.state.JobFacts;
import io.tideline.core.kernel.Inbox;
import io.tideline.core.kernel.Journal;
import io.tideline.core.kernel.Step;
import io.tideline.core.kernel.Table;
import io.tideline.core.kernel.Tick;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import io.tideline.core.placement.Placer;
import io.tideline.core.preemption.GpuCountProbe;
import io.tideline.core.preemption.MigrationCostModel;
import io.tideline.core.preemption.PlacementProbe;
import io.tideline.core.preemption.PreemptionDecision;
import io.tideline.core.preemption.PreemptionPlanner;
import io.tideline.core.preemption.PreemptionRequest;
import io.tideline.core.preemption.PreemptionRule;
import io.tideline.core.preemption.PreemptionScore;
import io.tideline.core.preemption.RunningJob;
import io.tideline.core.preemption.Victim;
import io.tideline.core.preemption.kernel.PreemptionEffect.Decided;
import io.tideline.core.preemption.kernel.PreemptionEffect.DecidedVictim;
import io.tideline.core.preemption.kernel.PreemptionInput.Reclaim;
import io.tideline.core.preemption.kernel.PreemptionInput.Request;
import io.tideline.core.trace.TraceEntry;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The preemption kernel: preemption-svc's single writer per cluster as a pure state machine. Its
 * view of the cluster is the one fold ({@link ClusterState}) of inventory, submissions, quota's
 * verdicts, lifecycle facts and placement's ledger changes — placement's own ledger, reservations
 * and holds included. Decisions only on ticks (ADR 0008). At a tick at {@code t}, in order:
 * <ol>
 *   <li>apply the facts timed before {@code t} in canonical order (the fold);</li>
 *   <li>answer placement's requests (and those deferred earlier): a request made on a ledger
 *       version the view has not reached waits for it, at most
 *       {@link PreemptionPolicy#maxViewLag()}; then
 *       <ul>
 *         <li>UNPLACEABLE: the preemptor must be a known job that still waits; its rights are
 *             quota's (W4), its shape placement's request's; victims are chosen by the planner
 *             (P1–P6) among every running job, with placement's own placer as the feasibility
 *             probe on the view;</li>
 *         <li>RESERVATION_START: only among the jobs placement names on the reserved GPUs; the
 *             shortfall is the reserved GPUs they hold, at most the count placement asks for
 *             (the part the rise is expected to use, ADR 0039); the gain is the shortfall ×
 *             {@link PreemptionPolicy#reservationValueHours()} (ADR 0006);</li>
 *       </ul></li>
 *   <li>answer quota's reclaims: an idle job (Q7 RECLAIM), an underused one to shrink (Q7
 *       SHRINK) or a borrower whose GPUs a queue below its guarantee needs back (Q3): the job
 *       must run; the victim guards apply ({@link PreemptionPlanner#reclaim}).</li>
 * </ol>
 * Every decision carries the view's ledger version, the rules' version and the trace, capped at
 * {@link PreemptionPolicy#traceCandidatesMax()} refused candidates and as many eligible ones not
 * needed (the rest counted per rule), so a decision over 100,000 running jobs stays one readable
 * record well under a broker's message size (it listed every eligible candidate before).
 */
public final class PreemptionKernel {

  /** Prefix of a Q3 guarantee reclaim's subject (its preemptor id): then the waiting job's id. */
  public static final String GUARANTEE_RECLAIM = "guarantee-reclaim/";

  /** Subject of the trace lines this kernel adds to the planner's. */
  public static final String VIEW = "preemption-view";

  private final PreemptionPolicy policy;
  private final Placer placer;
  private final PreemptionPlanner planner;
  private final PreemptionScore score;
  private final MigrationCostModel costs;

  public PreemptionKernel(PreemptionPolicy policy) {
    this.policy = policy;
    this.placer = new Placer(policy.placement());
    this.planner = new PreemptionPlanner(policy.rules());
    this.score = new PreemptionScore(policy.rules());
    this.costs = new MigrationCostModel(policy.rules());
  }

  public PreemptionPolicy policy() {
    return policy;
  }

  /** One step; see the placement kernel for {@code now}. */
  public Step<PreemptionState, PreemptionEffect> step(Instant now, PreemptionState state,
      PreemptionInput input) {
    if (input instanceof PreemptionInput.ClockTick t) {
      return tick(state, t.tick());
    }
    Journal j = new Journal();
    Instant reference = state.now() != null ? state.now() : now;
    if (reference != null && input.at().isAfter(reference.plus(policy.maxInputLead()))) {
      return new Step<>(state, List.of(new PreemptionEffect.Refused("event time " + input.at()
          + " is more than " + policy.maxInputLead() + " after the cluster clock " + reference
          + ": refused, it moves no clock", -1)), j.changes());
    }
    j.touch(PreemptionState.META, "inbox");
    return new Step<>(new PreemptionState(state.cluster(), state.deferred(), state.now(),
        state.inbox().add(input)), List.of(), j.changes());
  }

  private Step<PreemptionState, PreemptionEffect> tick(PreemptionState state, Tick tick) {
    Journal j = new Journal();
    List<PreemptionEffect> effects = new ArrayList<>();
    if (state.now() != null && tick.at().isBefore(state.now())) {
      return new Step<>(state, List.of(new PreemptionEffect.Refused("tick at " + tick.at()
          + " is behind the cluster clock " + state.now(), -1)), j.changes());
    }
    Instant now = tick.at();
    j.touch(PreemptionState.META, "meta");
    Inbox.Drained<PreemptionInput> due = state.inbox().drainBefore(now);
    ClusterState cluster = state.cluster();
    Table<Request> deferred = state.deferred();
    List<Inbox.Entry<PreemptionInput>> asks = new ArrayList<>();
    // 1. the facts
    for (Inbox.Entry<PreemptionInput> e : due.due()) {
      PreemptionInput in = e.input();
      ClusterFact fact = fact(in);
      if (fact == null) {
        asks.add(e);
        continue;
      }
      if (in instanceof PreemptionInput.Ledger l && l.change().version() <= cluster.version()) {
        continue; // already folded (a repeat)
      }
      ClusterState.Folded f = cluster.apply(j, fact);
      if (f.refused() != null) {
        effects.add(new PreemptionEffect.Refused(f.refused(), e.position().seq()));
      }
      cluster = f.state();
    }
    // 2. placement's requests, deferred ones first (in request order), then quota's reclaims
    List<Request> requests = new ArrayList<>(deferred.values());
    requests.sort(Comparator.comparing(Request::requestedAt).thenComparing(Request::requestId));
    for (Inbox.Entry<PreemptionInput> e : asks) {
      if (e.input() instanceof Request r) {
        requests.add(r);
      }
    }
    for (Request r : requests) {
      boolean behind = r.ledgerVersion() > cluster.version();
      boolean waited = Duration.between(r.requestedAt(), now).compareTo(policy.maxViewLag()) >= 0;
      if (behind && !waited) {
        deferred = deferred.put(j, r.requestId(), r);
        continue;
      }
      deferred = deferred.remove(j, r.requestId());
      effects.add(r.trigger() == Request.Trigger.RESERVATION_START
          ? reservationStart(cluster, r, now) : unplaceable(cluster, r, now));
    }
    for (Inbox.Entry<PreemptionInput> e : asks) {
      if (e.input() instanceof Reclaim q) {
        effects.add(reclaim(cluster, q, now));
      }
    }
    return new Step<>(new PreemptionState(cluster, deferred, now, due.rest()), effects,
        j.changes());
  }

  private static ClusterFact fact(PreemptionInput in) {
    if (in instanceof PreemptionInput.Inventory i) {
      return new ClusterFact.NodeObserved(i.node());
    } else if (in instanceof PreemptionInput.Submission s) {
      return new ClusterFact.Submitted(s.job());
    } else if (in instanceof PreemptionInput.Verdict v) {
      return new ClusterFact.Admitted(v.jobId(), v.admission());
    } else if (in instanceof PreemptionInput.Lifecycle l) {
      return l.fact();
    } else if (in instanceof PreemptionInput.Ledger l) {
      return l.change();
    }
    return null;
  }

  // ------------------------------------------------------------------------------ requests

  private Decided unplaceable(ClusterState cluster, Request r, Instant at) {
    String id = r.subject();
    List<TraceEntry> head = new ArrayList<>();
    head.add(viewLine(cluster, r.ledgerVersion()));
    String decisionId = r.requestId() + "/decision";
    String stale = null;
    if (!cluster.knows(id)) {
      stale = "unknown job: no submission of " + id + " seen";
    } else if (cluster.runs(id)) {
      stale = "stale request: " + id + " already runs (bound at v"
          + cluster.bindings().get(id).boundAt() + ")";
    } else if (cluster.snapshot() == null) {
      stale = "no inventory of cluster " + policy.cluster() + " yet";
    }
    if (stale != null) {
      head.add(new TraceEntry(id, "request", "REFUSE", stale));
      return refusal(decisionId, r.requestId(), id, "UNPLACEABLE", cluster, at, head);
    }
    JobRequest job = shaped(cluster.request(id), r);
    Admission v = cluster.admission(id);
    if (v == null) {
      head.add(new TraceEntry(id, "W4 right to preempt", "REFUSE",
          "no quota verdict for " + id + ": the right to preempt is quota's to grant"));
    }
    long wait = r.expectedWaitSeconds() >= 0 ? r.expectedWaitSeconds()
        : policy.assumedWait().toSeconds();
    double consumed = gpuHoursConsumed(cluster, id, at);
    PreemptionRequest core = new PreemptionRequest(id, job.tenant(), job.user(),
        job.workloadClass(), job.critical(), policy.mode() == PreemptionPolicy.Mode.NAIVE
        || (v != null && v.preemptionRight()), Math.max(1, job.gpuCount()), job.nodes(),
        wait, 0, consumed);
    if (r.expectedWaitSeconds() >= 0) {
      head.add(new TraceEntry(id, "P5 wait avoided", "PASS", "placement expects a wait of "
          + wait + " s without preemption"));
    }
    ClusterSnapshot s = cluster.snapshot();
    PreemptionDecision d = switch (policy.mode()) {
      case PLANNER -> planner.decide(core, runningJobs(cluster, at), new PlacementProbe(placer, s,
          job, at), at, nextOffPeak(at), policy.traceCandidatesMax());
      case NAIVE -> naive(cluster, core, job, at);
      case NONE -> null;
    };
    if (d == null) {
      head.add(new TraceEntry(id, "policy", "REFUSE", "preemption is off in this policy"));
      return refusal(decisionId, r.requestId(), id, "UNPLACEABLE", cluster, at, head);
    }
    return decided(decisionId, r.requestId(), id, "UNPLACEABLE", d, cluster, head, 0);
  }

  /** The job with the shape placement asked room for (a shrunk job asks fewer GPUs). */
  private static JobRequest shaped(JobRequest j, Request r) {
    return new JobRequest(j.jobId(), j.tenant(), j.team(), j.user(), j.workloadClass(),
        j.critical(), j.preemptible(), j.preemptionRight(), j.serviceId(), r.gpuCount(),
        r.gpuShare(), r.gangSize(), r.nodes(), r.allowedGpuModels(), j.submittedAt(),
        j.deadline(), j.expectedDurationSeconds(), j.checkpoint(), j.dataCacheGb(),
        j.resources());
  }

  /** GPU-hours the preemptor consumed in earlier runs (P1: a resumed job keeps its age). */
  private static double gpuHoursConsumed(ClusterState cluster, String id, Instant at) {
    return 0; // not tracked across runs yet: the view forgets an allocation when it ends
  }

  private Decided reservationStart(ClusterState cluster, Request r, Instant at) {
    String subject = r.subject();
    String decisionId = r.requestId() + "/decision";
    String service = r.serviceId() == null ? subject : r.serviceId();
    List<TraceEntry> head = new ArrayList<>();
    head.add(viewLine(cluster, r.ledgerVersion()));
    Map<String, Double> held = new TreeMap<>(r.holders());
    double total = held.values().stream().mapToDouble(Double::doubleValue).sum();
    if (held.isEmpty()) {
      head.add(new TraceEntry(subject, "F2 reservation start", "REFUSE",
          "placement named no job on the reserved GPUs: nobody to evict"));
      return refusal(decisionId, r.requestId(), subject, "RESERVATION_START", cluster, at, head);
    }
    // placement asks for the part the rise is expected to use (ADR 0039), never more than held
    int shortfall = (int) Math.ceil(total - 1e-9);
    if (r.gpuCount() > 0) {
      shortfall = Math.min(shortfall, r.gpuCount());
    }
    var res = r.reservationId() == null ? null : cluster.reservations().get(r.reservationId());
    head.add(new TraceEntry(subject, "F2 reservation start", "PASS", "reservation "
        + r.reservationId() + " for " + service
        + (res == null ? "" : " (" + res.gpus().size() + " GPU(s) from " + res.startsAt() + ")")
        + " started; placement reports " + String.format(Locale.ROOT, "%.2f", total)
        + " reserved GPU(s) held by " + held.keySet() + ": " + shortfall
        + " to reclaim, among these jobs only"));
    List<RunningJob> candidates = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    for (String id : held.keySet()) {
      if (cluster.runs(id)) {
        candidates.add(runningJob(cluster, cluster.bindings().get(id), at));
      } else {
        unknown.add(id);
      }
    }
    if (!unknown.isEmpty()) {
      head.add(new TraceEntry(subject, "F2 reservation start", "SKIP", "not running in this "
          + "view: " + unknown));
    }
    if (policy.mode() == PreemptionPolicy.Mode.NONE) {
      head.add(new TraceEntry(subject, "policy", "REFUSE", "preemption is off in this policy"));
      return refusal(decisionId, r.requestId(), subject, "RESERVATION_START", cluster, at, head);
    }
    PreemptionRequest core = new PreemptionRequest(subject, service, service,
        WorkloadClass.ONLINE_INFERENCE, false, true, shortfall, 0, 0,
        shortfall * policy.reservationValueHours(), 0);
    PreemptionDecision d = planner.decide(core, candidates, new GpuCountProbe(0, held), at,
        nextOffPeak(at), policy.traceCandidatesMax());
    return decided(decisionId, r.requestId(), subject, "RESERVATION_START", d, cluster, head, 0);
  }

  // ------------------------------------------------------------------------------ reclaims

  private Decided reclaim(ClusterState cluster, Reclaim q, Instant at) {
    if (q.action() == Reclaim.Action.GUARANTEE) {
      return guarantee(cluster, q, at);
    }
    String id = q.jobId();
    boolean shrink = q.action() == Reclaim.Action.SHRINK;
    String kind = shrink ? "SHRINK" : "IDLE_RECLAIM";
    PreemptionRule rule = shrink ? PreemptionRule.Q7_SHRINK : PreemptionRule.Q7_IDLE_RECLAIM;
    String prefix = shrink ? "shrink/" : "idle-reclaim/";
    String subject = prefix + id;
    String decisionId = policy.cluster() + "/" + prefix + id + "/" + q.decidedAt().toEpochMilli();
    List<TraceEntry> head = new ArrayList<>();
    head.add(viewLine(cluster, cluster.version()));
    if (!cluster.runs(id)) {
      head.add(new TraceEntry(id, rule.label(), "REFUSE", "stale reclaim: " + id
          + " is not running"));
      return refusal(decisionId, decisionId, subject, kind, cluster, at, head);
    }
    if (policy.mode() == PreemptionPolicy.Mode.NONE) {
      head.add(new TraceEntry(id, "policy", "REFUSE", "preemption is off in this policy"));
      return refusal(decisionId, decisionId, subject, kind, cluster, at, head);
    }
    RunningJob job = runningJob(cluster, cluster.bindings().get(id), at);
    PreemptionDecision d = planner.reclaim(subject, job, rule, q.reason(), at, nextOffPeak(at));
    return decided(decisionId, decisionId, subject, kind, d, cluster, head,
        shrink ? q.recommendedGpus() : 0);
  }

  /**
   * Q3 (ADR 0015): quota names the borrowers whose GPUs a job within its queue's guarantee needs
   * back — no victim search, no score contest (the floor is an entitlement); each borrower must
   * run in the view and pass the victim guards; the decision evicts every one that does.
   */
  private Decided guarantee(ClusterState cluster, Reclaim q, Instant at) {
    String subject = GUARANTEE_RECLAIM + q.jobId();
    String decisionId = q.reclaimId() != null ? q.reclaimId() + "/decision"
        : policy.cluster() + "/guarantee/" + q.jobId() + "/" + q.decidedAt().toEpochMilli();
    String rule = PreemptionRule.Q3_GUARANTEE_RECLAIM.label();
    List<TraceEntry> head = new ArrayList<>();
    head.add(viewLine(cluster, cluster.version()));
    head.add(new TraceEntry(q.jobId(), rule, "PASS", "within its queue's guarantee: borrowed "
        + "GPUs go back from " + q.borrowers() + " (" + q.reason() + ")"));
    if (policy.mode() == PreemptionPolicy.Mode.NONE) {
      head.add(new TraceEntry(q.jobId(), "policy", "REFUSE", "preemption is off in this policy"));
      return refusal(decisionId, decisionId, subject, "GUARANTEE_RECLAIM", cluster, at, head);
    }
    List<Victim> victims = new ArrayList<>();
    List<io.tideline.core.preemption.TraceEntry> lines = new ArrayList<>();
    double cost = 0;
    for (String b : q.borrowers()) {
      if (!cluster.runs(b)) {
        head.add(new TraceEntry(b, rule, "SKIP", "not running in this view"));
        continue;
      }
      RunningJob job = runningJob(cluster, cluster.bindings().get(b), at);
      PreemptionDecision one = planner.reclaim(subject, job,
          PreemptionRule.Q3_GUARANTEE_RECLAIM, q.reason(), at, nextOffPeak(at));
      lines.addAll(one.trace().subList(Math.min(1, one.trace().size()), one.trace().size()));
      if (one.preempts()) {
        victims.addAll(one.victims());
        cost += one.totalCostGpuHours();
      }
    }
    PreemptionDecision d = new PreemptionDecision(victims.isEmpty()
        ? PreemptionDecision.Outcome.REFUSED : PreemptionDecision.Outcome.PREEMPT, subject, 0,
        victims, cost, 0, lines, policy.rules().policyVersion(), at);
    return decided(decisionId, q.reclaimId() == null ? decisionId : q.reclaimId(), subject,
        "GUARANTEE_RECLAIM", d, cluster, head, 0);
  }

  // ------------------------------------------------------------------------------ naive baseline

  /**
   * The naive baseline ({@link PreemptionPolicy.Mode#NAIVE}): candidates of strictly lower static
   * priority (online never), lowest priority then newest first, id as tie-break; the shortest
   * prefix after which the preemptor fits; no protection, cooldown, threshold or cost rule.
   */
  private PreemptionDecision naive(ClusterState cluster, PreemptionRequest core, JobRequest job,
      Instant at) {
    double mine = score.staticPriority(core.workloadClass(), core.critical());
    List<RunningJob> cands = new ArrayList<>();
    for (Binding b : cluster.bindings().values()) {
      RunningJob r = runningJob(cluster, b, at);
      if (r.workloadClass() != WorkloadClass.ONLINE_INFERENCE
          && score.staticPriority(r.workloadClass(), r.critical()) < mine) {
        cands.add(r);
      }
    }
    cands.sort(Comparator.<RunningJob>comparingDouble(
            r -> score.staticPriority(r.workloadClass(), r.critical()))
        .thenComparing(RunningJob::startedAt, Comparator.reverseOrder())
        .thenComparing(RunningJob::jobId));
    ClusterSnapshot s = cluster.snapshot();
    List<io.tideline.core.preemption.TraceEntry> none = List.of();
    if (cands.isEmpty() || placer.decide(at, s, job).placed() || !fits(s, job, cands,
        cands.size(), at)) {
      return new PreemptionDecision(PreemptionDecision.Outcome.REFUSED, core.jobId(), mine,
          List.of(), 0, 0, none, policy.rules().policyVersion() + "/naive", at);
    }
    int lo = 1;
    int hi = cands.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (fits(s, job, cands, mid, at)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    List<Victim> victims = new ArrayList<>();
    double cost = 0;
    for (RunningJob v : cands.subList(0, lo)) {
      var c = costs.cost(v, at);
      cost += c.gpuHours();
      victims.add(new Victim(v.jobId(), v.tenant(), v.user(),
          score.staticPriority(v.workloadClass(), v.critical()), c,
          new io.tideline.core.preemption.Compensation(Duration.ZERO, at, null, false)));
    }
    return new PreemptionDecision(PreemptionDecision.Outcome.PREEMPT, core.jobId(), mine,
        victims, cost, 0, List.of(new io.tideline.core.preemption.TraceEntry(core.jobId(),
            PreemptionRule.VICTIM_SET, io.tideline.core.preemption.TraceEntry.Result.TAKE,
            "naive: the " + lo + " lowest-priority, newest job(s) make room")),
        policy.rules().policyVersion() + "/naive", at);
  }

  private boolean fits(ClusterSnapshot s, JobRequest job, List<RunningJob> cands, int k,
      Instant at) {
    Set<String> ids = new LinkedHashSet<>();
    for (int i = 0; i < k; i++) {
      ids.add(cands.get(i).jobId());
    }
    return placer.decideIfReleased(at, s, job, ids).placed();
  }

  // ------------------------------------------------------------------------------ the view

  /** The running jobs as the planner sees them, in job id order. */
  private List<RunningJob> runningJobs(ClusterState cluster, Instant at) {
    List<RunningJob> out = new ArrayList<>(cluster.bindings().size());
    for (Binding b : cluster.bindings().values()) {
      out.add(runningJob(cluster, b, at));
    }
    return out;
  }

  /**
   * A running job as the planner prices it: from its request and quota's verdict (W4: only quota
   * makes a job preemptible; no verdict, no victim), the allocation, and the lifecycle facts (last
   * start, checkpoint, cache, progress; unknown cache state counts as warm: priced at its worst).
   */
  static RunningJob runningJob(ClusterState cluster, Binding b, Instant at) {
    String id = b.jobId();
    JobRequest j = cluster.request(id);
    Admission v = cluster.admission(id);
    JobFacts f = cluster.factsOf(id);
    Set<String> spanned = new HashSet<>();
    for (GpuAssignment a : b.assignments()) {
      spanned.add(a.nodeId());
    }
    double gpus = b.gpuShare();
    Instant started = f.startedAt() != null ? f.startedAt() : b.boundTime();
    double elapsed = Math.max(0, Duration.between(started, at).toMillis() / 1000.0);
    long remaining = RunningJob.UNKNOWN_REMAINING;
    if (f.progress() != null && f.progress() > 0 && f.progress() <= 1) {
      remaining = Math.round(elapsed * (1 - f.progress()) / f.progress());
    } else if (j != null && j.expectedDurationSeconds() > 0) {
      remaining = Math.max(0, j.expectedDurationSeconds() - Math.round(elapsed));
    }
    double cacheGb = j == null ? 0 : j.dataCacheGb();
    boolean warm = f.cacheWarm() != null ? f.cacheWarm() : cacheGb > 0;
    return new RunningJob(id, j == null ? "" : j.tenant(), j == null ? "" : j.user(),
        j == null ? WorkloadClass.TRAINING : j.workloadClass(), j != null && j.critical(),
        v != null && v.preemptible(), gpus, Math.max(1, spanned.size()), started,
        f.lastPreemptedAt(), f.lastCheckpointAt(), warm, cacheGb, remaining,
        gpus * elapsed / 3600.0, j == null ? null : j.checkpoint());
  }

  private TraceEntry viewLine(ClusterState cluster, long requestVersion) {
    String detail = "view: " + cluster.nodes().size() + " nodes, " + cluster.bindings().size()
        + " running jobs, ledger v" + cluster.version()
        + (requestVersion != cluster.version() ? " (asked at v" + requestVersion + ")" : "");
    if (!cluster.unplaced().isEmpty()) {
      detail += "; left out of the feasibility view (events in flight): " + cluster.unplaced();
    }
    return new TraceEntry(VIEW, "O2 inputs", "PASS", detail);
  }

  /** P6: the next start of the nightly trough after {@code at} (UTC). */
  private Instant nextOffPeak(Instant at) {
    LocalDate day = at.atZone(ZoneOffset.UTC).toLocalDate();
    Instant t = day.atTime(policy.offPeakStart()).toInstant(ZoneOffset.UTC);
    return t.isAfter(at) ? t : day.plusDays(1).atTime(policy.offPeakStart())
        .toInstant(ZoneOffset.UTC);
  }

  // ------------------------------------------------------------------------------ outputs

  private Decided decided(String decisionId, String requestId, String subject, String trigger,
      PreemptionDecision d, ClusterState cluster, List<TraceEntry> head, int shrinkTo) {
    List<TraceEntry> trace = new ArrayList<>(head);
    trace.addAll(compact(d.trace(), d.preemptorId()));
    List<DecidedVictim> victims = new ArrayList<>();
    for (Victim v : d.victims()) {
      victims.add(new DecidedVictim(v.jobId(), v.tenant() == null ? "" : v.tenant(),
          v.user() == null ? "" : v.user(), v.score(), v.cost().gpusHeld(), v.cost().gpuHours(),
          v.compensation().queueBoost().toSeconds() / 60.0, v.compensation().offPeakRetryAt(),
          v.compensation().sharedPoolFallback(), shrinkTo));
    }
    return new Decided(decisionId, requestId, subject, trigger, d.preempts(), d.preemptorScore(),
        victims, d.totalCostGpuHours(), d.gainGpuHours(), cluster.version(), d.policyVersion(),
        d.decidedAt(), trace);
  }

  private Decided refusal(String decisionId, String requestId, String subject, String trigger,
      ClusterState cluster, Instant at, List<TraceEntry> trace) {
    return new Decided(decisionId, requestId, subject, trigger, false, 0, List.of(), 0, 0,
        cluster.version(), policy.rules().policyVersion(), at, trace);
  }

  /**
   * The planner's trace as decision lines: every line about the preemptor and every candidate
   * taken; refused candidates and eligible candidates not needed ({@code SKIP}) one by one up to
   * the cap each, the rest counted per rule.
   */
  private List<TraceEntry> compact(List<io.tideline.core.preemption.TraceEntry> trace,
      String preemptorId) {
    List<TraceEntry> out = new ArrayList<>();
    Map<String, Integer> more = new LinkedHashMap<>();
    Map<String, Integer> moreSkipped = new LinkedHashMap<>();
    int refusals = 0;
    int skips = 0;
    var last = trace.isEmpty() ? null : trace.get(trace.size() - 1);
    for (var e : trace) {
      if (e == last) {
        continue;
      }
      boolean candidateRefusal = e.result() == io.tideline.core.preemption.TraceEntry.Result
          .REFUSE && !e.subject().equals(preemptorId);
      if (candidateRefusal && ++refusals > policy.traceCandidatesMax()) {
        more.merge(e.rule().label(), 1, Integer::sum);
        continue;
      }
      if (e.result() == io.tideline.core.preemption.TraceEntry.Result.SKIP
          && ++skips > policy.traceCandidatesMax()) {
        moreSkipped.merge(e.rule().label(), 1, Integer::sum);
        continue;
      }
      out.add(line(e));
    }
    more.forEach((rule, n) -> out.add(new TraceEntry(VIEW, rule, "REFUSE", n
        + " more candidate(s) refused by this rule (trace capped at "
        + policy.traceCandidatesMax() + " refusals)")));
    moreSkipped.forEach((rule, n) -> out.add(new TraceEntry(VIEW, rule, "SKIP", n
        + " more eligible candidate(s) not taken (trace capped at "
        + policy.traceCandidatesMax() + " of them)")));
    if (last != null) {
      out.add(line(last));
    }
    return out;
  }

  private static TraceEntry line(io.tideline.core.preemption.TraceEntry e) {
    return new TraceEntry(e.subject(), e.rule().label(), e.result().name(), e.detail());
  }
}
