package io.tideline.preemption.view;

import io.tideline.core.cluster.Allocation;
import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.GpuRef;
import io.tideline.core.cluster.Node;
import io.tideline.core.cluster.Reservation;
import io.tideline.core.cluster.SwitchPath;
import io.tideline.core.cluster.Topology;
import io.tideline.core.model.JobRequest;
import io.tideline.core.placement.Placer;
import io.tideline.core.preemption.GpuCountProbe;
import io.tideline.core.preemption.PlacementProbe;
import io.tideline.core.preemption.PreemptionDecision;
import io.tideline.core.preemption.PreemptionPlanner;
import io.tideline.core.preemption.PreemptionRequest;
import io.tideline.core.preemption.RunningJob;
import io.tideline.core.preemption.TraceEntry;
import io.tideline.core.preemption.Victim;
import io.tideline.events.CapacityReservation;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.PreemptionTrigger;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.ReclaimAction;
import io.tideline.events.RuleTraceEntry;
import io.tideline.platform.intake.JobRequests;
import io.tideline.platform.topics.TopicCatalogue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.jboss.logging.Logger;

/**
 * Preemption's own view of one cluster, built from events, and the adapter that asks the core for
 * decisions. Memory is a cache of the store: every change is written through {@link Effects} in
 * the same exactly-once transaction as the decision it leads to, and {@link #restore} rebuilds
 * the same view from the store.
 *
 * <p>Who holds what: {@code placement.decisions} (PLACED and MIGRATED bind GPUs, RELEASED frees
 * them, HELD_FOR_PREEMPTOR reserves GPUs for a preemptor). What a job is: {@code jobs.submitted}
 * (class, shape, checkpoint profile) and {@code quota.verdicts} (preemptible, preemption right:
 * quota's word, never the submitter's, W4). What happened to it: {@code jobs.lifecycle}
 * ({@link Facts}). The topology: {@code cluster.inventory}.
 *
 * <p>Store entries, keyed {@code cluster|kind|id}: {@code N} node inventory, {@code J}
 * submission, {@code V} verdict, {@code R} the placement decision binding a running job,
 * {@code H} a hold, {@code L} lifecycle facts, {@code S} a reservation waiting to start,
 * {@code M} meta (logical now, last placement ledger version seen).
 */
final class ClusterView {

  private static final Logger LOG = Logger.getLogger(ClusterView.class);

  /** Where outputs and store writes go; buffered until the record is done. */
  interface Effects {
    /** Serializes and writes {@code value} to {@code topic}; returns the bytes. */
    byte[] emit(String topic, String key, SpecificRecord value);

    /** Writes ({@code null}: deletes) view entry {@code kind|id} of this cluster. */
    void put(String kind, String id, byte[] value);

    /** Keeps a published decision for the REST API. */
    void keep(String decisionId, byte[] value);
  }

  static final String NODE = "N";
  static final String JOB = "J";
  static final String VERDICT = "V";
  static final String RUNNING = "R";
  static final String HOLD = "H";
  static final String FACTS = "L";
  static final String RESERVATION = "S";
  static final String META = "M";

  /** Subject of the lines this adapter adds to the core's trace. */
  static final String VIEW = "preemption-view";

  private final String cluster;
  private final PreemptionPolicy policy;
  private final Deserializer<Object> deserializer;
  private final Placer placer;
  private final PreemptionPlanner planner;
  private Effects fx;

  private final TreeMap<String, NodeInventory> nodes = new TreeMap<>();
  private final Map<String, JobSubmitted> submissions = new HashMap<>();
  private final Map<String, QuotaVerdict> verdicts = new HashMap<>();
  private final TreeMap<String, PlacementDecision> running = new TreeMap<>();
  private final TreeMap<String, PlacementDecision> holds = new TreeMap<>();
  private final Map<String, Facts> facts = new HashMap<>();
  private final TreeMap<String, CapacityReservation> reservations = new TreeMap<>();
  private Instant now = Instant.EPOCH;
  private long ledgerVersion;

  // derived, rebuilt when the holdings change
  private ClusterSnapshot snap;
  private final List<String> unplaced = new ArrayList<>();

  ClusterView(String cluster, PreemptionPolicy policy, Deserializer<Object> deserializer) {
    this.cluster = cluster;
    this.policy = policy;
    this.deserializer = deserializer;
    this.placer = new Placer(policy.placement());
    this.planner = new PreemptionPlanner(policy.rules());
  }

  // =================================================================== restore

  /** Rebuilds the view from its store entries (kind → id → bytes). */
  void restore(Map<String, Map<String, byte[]>> store) {
    store.getOrDefault(NODE, Map.of()).forEach((id, b) -> nodes.put(id, decode(b)));
    store.getOrDefault(JOB, Map.of()).forEach((id, b) -> submissions.put(id, decode(b)));
    store.getOrDefault(VERDICT, Map.of()).forEach((id, b) -> verdicts.put(id, decode(b)));
    store.getOrDefault(RUNNING, Map.of()).forEach((id, b) -> running.put(id, decode(b)));
    store.getOrDefault(HOLD, Map.of()).forEach((id, b) -> holds.put(id, decode(b)));
    store.getOrDefault(FACTS, Map.of()).forEach((id, b) -> facts.put(id, Facts.decode(b)));
    store.getOrDefault(RESERVATION, Map.of()).forEach((id, b) -> reservations.put(id, decode(b)));
    Map<String, byte[]> meta = store.getOrDefault(META, Map.of());
    if (meta.containsKey("now")) {
      now = Instant.ofEpochMilli(Long.parseLong(str(meta.get("now"))));
    }
    if (meta.containsKey("ledgerVersion")) {
      ledgerVersion = Long.parseLong(str(meta.get("ledgerVersion")));
    }
    snap = null;
  }

  // =================================================================== inputs

  void onInventory(Effects fx, byte[] raw, NodeInventory n) {
    this.fx = fx;
    advance(n.getObservedAt());
    nodes.put(n.getNodeId(), n);
    fx.put(NODE, n.getNodeId(), raw);
    snap = null;
    dueReservations();
  }

  void onSubmitted(Effects fx, byte[] raw, JobSubmitted e) {
    this.fx = fx;
    submissions.put(e.getJobId(), e);
    fx.put(JOB, e.getJobId(), raw);
    snap = null; // a running job's request may now be known
  }

  void onVerdict(Effects fx, byte[] raw, QuotaVerdict v) {
    this.fx = fx;
    verdicts.put(v.getJobId(), v);
    fx.put(VERDICT, v.getJobId(), raw);
    snap = null;
  }

  void onLifecycle(Effects fx, JobLifecycle l) {
    this.fx = fx;
    advance(l.getOccurredAt());
    String id = l.getJobId();
    switch (l.getType()) {
      case COMPLETED, FAILED -> {
        // the job is gone: forget what priced it (placement's RELEASED frees its GPUs)
        if (facts.remove(id) != null) {
          fx.put(FACTS, id, null);
        }
        if (submissions.remove(id) != null) {
          fx.put(JOB, id, null);
        }
        if (verdicts.remove(id) != null) {
          fx.put(VERDICT, id, null);
        }
        snap = null;
      }
      default -> {
        Facts f = facts.computeIfAbsent(id, k -> new Facts());
        switch (l.getType()) {
          case STARTED, RESUMED -> {
            f.startedAt = l.getOccurredAt();
            f.progress = null;
          }
          case CHECKPOINTED -> f.lastCheckpointAt = l.getCheckpointAt() != null
              ? l.getCheckpointAt() : l.getOccurredAt();
          case PREEMPTED -> f.lastPreemptedAt = l.getOccurredAt();
          default -> { }
        }
        if (l.getType() != io.tideline.events.LifecycleType.CHECKPOINTED
            && l.getCheckpointAt() != null) {
          f.lastCheckpointAt = l.getCheckpointAt();
        }
        if (l.getCacheWarm() != null) {
          f.cacheWarm = l.getCacheWarm();
        }
        if (l.getProgress() != null) {
          f.progress = l.getProgress();
        }
        fx.put(FACTS, id, f.encode());
      }
    }
    dueReservations();
  }

  void onPlacement(Effects fx, byte[] raw, PlacementDecision d) {
    this.fx = fx;
    advance(d.getDecidedAt());
    if (d.getLedgerVersion() > ledgerVersion) {
      ledgerVersion = d.getLedgerVersion();
      fx.put(META, "ledgerVersion", bytes(Long.toString(ledgerVersion)));
    }
    String id = d.getJobId();
    switch (d.getOutcome()) {
      case PLACED, MIGRATED -> {
        running.put(id, d);
        fx.put(RUNNING, id, raw);
        if (holds.remove(id) != null) {
          fx.put(HOLD, id, null);
        }
        snap = null;
      }
      case RELEASED -> {
        if (running.remove(id) != null) {
          fx.put(RUNNING, id, null);
          snap = null;
        }
      }
      case HELD_FOR_PREEMPTOR -> {
        holds.put(id, d);
        fx.put(HOLD, id, raw);
        snap = null;
      }
      default -> { }
    }
    dueReservations();
  }

  void onReservation(Effects fx, byte[] raw, CapacityReservation c) {
    this.fx = fx;
    advance(c.getIssuedAt());
    switch (c.getAction()) {
      case RESERVE -> {
        reservations.put(c.getReservationId(), c);
        fx.put(RESERVATION, c.getReservationId(), raw);
      }
      case RELEASE -> {
        if (reservations.remove(c.getReservationId()) != null) {
          fx.put(RESERVATION, c.getReservationId(), null);
        }
      }
      default -> { } // OVER_ISSUE draws on the shared pool: placement's, nobody is evicted
    }
    dueReservations();
  }

  void onClock(Effects fx, Instant time) {
    this.fx = fx;
    advance(time);
    dueReservations();
  }

  /**
   * Answers placement's request at the request's event time: UNPLACEABLE (room for a waiting job)
   * or RESERVATION_START (the jobs on the GPUs placement reserved for a starting service).
   */
  void onRequest(Effects fx, io.tideline.events.PreemptionRequest r) {
    this.fx = fx;
    advance(r.getRequestedAt());
    if (r.getTrigger() == PreemptionTrigger.RESERVATION_START) {
      reclaimFor(r);
      dueReservations();
      return;
    }
    Instant at = r.getRequestedAt();
    String id = r.getPreemptorJobId();
    ClusterSnapshot s = nodes.isEmpty() ? null : snapshot(); // first: the view line names gaps
    List<RuleTraceEntry> head = new ArrayList<>();
    head.add(viewLine(r.getLedgerVersion()));
    // 1. the request must be about a job we know that still waits
    String stale = null;
    if (!submissions.containsKey(id)) {
      stale = "unknown job: no submission of " + id + " seen";
    } else if (running.containsKey(id)) {
      stale = "stale request: " + id + " already runs (" + running.get(id).getDecisionId() + ")";
    } else if (nodes.isEmpty()) {
      stale = "no inventory of cluster " + cluster + " yet";
    }
    String decisionId = r.getRequestId() + "/decision";
    if (stale != null) {
      head.add(new RuleTraceEntry(id, "request", "REFUSE", stale));
      publishRefusal(decisionId, r.getRequestId(), id, at, r.getLedgerVersion(),
          PreemptionTrigger.UNPLACEABLE, head);
      dueReservations();
      return;
    }
    // 2. the preemptor as the core sees it: rights from quota's verdict (W4), shape from placement
    JobRequest job = request(id);
    QuotaVerdict v = verdicts.get(id);
    if (v == null) {
      head.add(new RuleTraceEntry(id, "W4 right to preempt", "REFUSE",
          "no quota verdict for " + id + ": the right to preempt is quota's to grant"));
    }
    PreemptionRequest core = new PreemptionRequest(id, job.tenant(), job.user(),
        job.workloadClass(), job.critical(), v != null && v.getPreemptionRightGranted(),
        Math.max(1, job.gpuCount()), job.nodes(), policy.assumedWait().toSeconds(), 0,
        0); // GPU-hours of earlier runs of the preemptor are not tracked yet
    // 3. decide on our view, with placement's own placer as the feasibility probe
    PreemptionDecision d = planner.decide(core, runningJobs(at), new PlacementProbe(placer, s,
        job, at), at, nextOffPeak(at));
    publish(decisionId, r.getRequestId(), id, d, r.getLedgerVersion(),
        PreemptionTrigger.UNPLACEABLE, head);
    dueReservations();
  }

  /** Quota's idle reclaim (Q7): RECLAIM is decided here; SHRINK is placement's to apply. */
  void onReclaim(Effects fx, QuotaReclaim q) {
    this.fx = fx;
    advance(q.getDecidedAt());
    if (q.getAction() == ReclaimAction.RECLAIM) {
      Instant at = q.getDecidedAt();
      String id = q.getJobId();
      String subject = "idle-reclaim/" + id;
      String decisionId = cluster + "/idle-reclaim/" + id + "/" + at.toEpochMilli();
      List<RuleTraceEntry> head = new ArrayList<>();
      head.add(viewLine(ledgerVersion));
      if (!running.containsKey(id)) {
        head.add(new RuleTraceEntry(id, "Q7 idle reclaim", "REFUSE",
            "stale reclaim: " + id + " is not running"));
        publishRefusal(decisionId, decisionId, subject, at, ledgerVersion,
            PreemptionTrigger.IDLE_RECLAIM, head);
      } else {
        RunningJob job = runningJob(running.get(id), at);
        PreemptionDecision d = planner.reclaimIdle(subject, job, q.getReason(), at,
            nextOffPeak(at));
        publish(decisionId, decisionId, subject, d, ledgerVersion,
            PreemptionTrigger.IDLE_RECLAIM, head);
      }
    } else {
      LOG.debugf("SHRINK of %s left to placement (not a preemption)", q.getJobId());
    }
    dueReservations();
  }

  // =================================================================== reservation start (F2)

  /**
   * Forgets reservations whose slot has ended. Reservations are kept only to describe a starting
   * one in the trace: the start itself is placement's to notice (it picked the reserved GPUs and
   * asks with the jobs on them, {@link #reclaimFor}); this view decides nothing on its own then.
   */
  private void dueReservations() {
    for (CapacityReservation c : new ArrayList<>(reservations.values())) {
      if (!c.getValidUntil().isAfter(now)) {
        reservations.remove(c.getReservationId());
        fx.put(RESERVATION, c.getReservationId(), null);
      }
    }
  }

  /**
   * F2 at a reservation start, on placement's request: the victims are chosen among the jobs on
   * the GPUs placement reserved ({@code holders}) and nowhere else, with every rule applied (the
   * service is an online preemptor with the right to preempt; protection, cooldown, threshold,
   * cost vs gain hold as for any preemption). The shortfall is the reserved GPUs those jobs hold;
   * each candidate frees its reserved share ({@link GpuCountProbe}); the gain is
   * {@code shortfall × reservation-value-hours} GPU-hours.
   */
  private void reclaimFor(io.tideline.events.PreemptionRequest r) {
    Instant at = r.getRequestedAt();
    String subject = r.getPreemptorJobId();
    String decisionId = r.getRequestId() + "/decision";
    String service = r.getServiceId() == null ? subject : r.getServiceId();
    List<RuleTraceEntry> head = new ArrayList<>();
    if (!nodes.isEmpty()) {
      snapshot(); // first: the view line names gaps
    }
    head.add(viewLine(r.getLedgerVersion()));
    // 1. the jobs placement names, with the reserved share each holds
    Map<String, Double> held = new TreeMap<>();
    r.getHolders().forEach(h -> held.merge(h.getJobId(), h.getReservedGpus(), Double::sum));
    double total = held.values().stream().mapToDouble(Double::doubleValue).sum();
    if (held.isEmpty()) {
      head.add(new RuleTraceEntry(subject, "F2 reservation start", "REFUSE",
          "placement named no job on the reserved GPUs: nobody to evict"));
      publishRefusal(decisionId, r.getRequestId(), subject, at, r.getLedgerVersion(),
          PreemptionTrigger.RESERVATION_START, head);
      return;
    }
    int shortfall = (int) Math.ceil(total - 1e-9);
    CapacityReservation c = r.getReservationId() == null ? null
        : reservations.get(r.getReservationId());
    head.add(new RuleTraceEntry(subject, "F2 reservation start", "PASS", "reservation "
        + r.getReservationId() + " for " + service
        + (c == null ? "" : " (" + c.getGpus() + " GPU(s) from " + c.getValidFrom() + ")")
        + " started; placement reports " + String.format(Locale.ROOT, "%.2f", total)
        + " reserved GPU(s) held by " + held.keySet() + ": " + shortfall
        + " to reclaim, among these jobs only"));
    // 2. the candidates: the named jobs this view sees running (the others are named in a line)
    List<RunningJob> candidates = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    for (String id : held.keySet()) {
      if (running.containsKey(id)) {
        candidates.add(runningJob(running.get(id), at));
      } else {
        unknown.add(id);
      }
    }
    if (!unknown.isEmpty()) {
      head.add(new RuleTraceEntry(subject, "F2 reservation start", "SKIP", "not running in this "
          + "view (events in flight): " + unknown));
    }
    PreemptionRequest core = new PreemptionRequest(subject, service, service,
        io.tideline.core.model.WorkloadClass.ONLINE_INFERENCE, false, true, shortfall, 0, 0,
        shortfall * policy.reservationValueHours(), 0);
    PreemptionDecision d = planner.decide(core, candidates, new GpuCountProbe(0, held), at,
        nextOffPeak(at));
    publish(decisionId, r.getRequestId(), subject, d, r.getLedgerVersion(),
        PreemptionTrigger.RESERVATION_START, head);
  }

  // =================================================================== the view for the core

  /** The running jobs as the core sees them, in job id order. */
  private List<RunningJob> runningJobs(Instant at) {
    List<RunningJob> out = new ArrayList<>(running.size());
    for (PlacementDecision d : running.values()) {
      out.add(runningJob(d, at));
    }
    return out;
  }

  private RunningJob runningJob(PlacementDecision d, Instant at) {
    String id = d.getJobId();
    JobRequest j = submissions.containsKey(id) ? request(id) : null;
    QuotaVerdict v = verdicts.get(id);
    Facts f = facts.get(id);
    double gpus = 0;
    Set<String> spanned = new HashSet<>();
    for (var a : d.getAssignments()) {
      gpus += a.getShare();
      spanned.add(a.getNodeId());
    }
    Instant started = f != null && f.startedAt != null ? f.startedAt : d.getDecidedAt();
    double elapsed = Math.max(0, Duration.between(started, at).toMillis() / 1000.0);
    long remaining = RunningJob.UNKNOWN_REMAINING;
    if (f != null && f.progress != null && f.progress > 0 && f.progress <= 1) {
      remaining = Math.round(elapsed * (1 - f.progress) / f.progress);
    } else if (j != null && j.expectedDurationSeconds() > 0) {
      remaining = Math.max(0, j.expectedDurationSeconds() - Math.round(elapsed));
    }
    double cacheGb = j == null ? 0 : j.dataCacheGb();
    // unknown cache state counts as warm: the eviction is priced at its worst (P4)
    boolean warm = f != null && f.cacheWarm != null ? f.cacheWarm : cacheGb > 0;
    return new RunningJob(id, j == null ? "" : j.tenant(), j == null ? "" : j.user(),
        j == null ? io.tideline.core.model.WorkloadClass.TRAINING : j.workloadClass(),
        j != null && j.critical(),
        // W4: only quota's verdict makes a job preemptible; no verdict, no victim
        v != null && v.getPreemptible(),
        gpus, Math.max(1, spanned.size()), started, f == null ? null : f.lastPreemptedAt,
        f == null ? null : f.lastCheckpointAt, warm, cacheGb, remaining,
        gpus * elapsed / 3600.0, j == null ? null : j.checkpoint());
  }

  /** The ledger as placement would see it: nodes, running allocations, holds, cordons. */
  private ClusterSnapshot snapshot() {
    if (snap != null) {
      return snap;
    }
    unplaced.clear();
    Set<String> skip = new TreeSet<>();
    while (true) {
      List<Node> list = new ArrayList<>();
      nodes.values().forEach(n -> list.add(toNode(n)));
      ClusterSnapshot.Builder b = ClusterSnapshot.builder(Topology.of(list));
      String failed = null;
      for (PlacementDecision d : running.values()) {
        if (skip.contains(d.getJobId())) {
          continue;
        }
        try {
          b.allocate(new Allocation(requestOrShape(d), fromEvents(d.getAssignments())));
        } catch (IllegalArgumentException e) {
          failed = d.getJobId();
          unplaced.add(d.getJobId() + " (" + e.getMessage() + ")");
          break;
        }
      }
      if (failed != null) {
        skip.add(failed); // the view disagrees with itself (events in flight): leave it out
        continue;
      }
      for (PlacementDecision h : holds.values()) {
        TreeSet<GpuRef> gpus = new TreeSet<>();
        fromEvents(h.getAssignments()).forEach(a -> gpus.add(a.gpu()));
        if (!gpus.isEmpty()) {
          b.reserve(new Reservation("hold:" + h.getJobId(), "hold:" + h.getJobId(), gpus,
              Instant.EPOCH, null));
        }
      }
      nodes.values().stream().filter(n -> n.getChange() == NodeChange.DRAINED
          || n.getChange() == NodeChange.LEFT).forEach(n -> b.cordon(n.getNodeId()));
      snap = b.version(ledgerVersion).build();
      return snap;
    }
  }

  /** The job as placement sees it: the submission with the verdict's effective rights (W4). */
  private JobRequest request(String id) {
    JobRequest j = JobRequests.fromEvent(submissions.get(id));
    QuotaVerdict v = verdicts.get(id);
    return new JobRequest(j.jobId(), j.tenant(), j.team(), j.user(), j.workloadClass(),
        j.critical(), v != null && v.getPreemptible(), v != null && v.getPreemptionRightGranted(),
        j.serviceId(), j.gpuCount(), j.gpuShare(), j.gangSize(), j.nodes(), j.allowedGpuModels(),
        j.submittedAt(), j.deadline(), j.expectedDurationSeconds(), j.checkpoint(),
        j.dataCacheGb());
  }

  /** The request of a running job, or (submission not seen) its shape from the decision. */
  private JobRequest requestOrShape(PlacementDecision d) {
    if (submissions.containsKey(d.getJobId())) {
      return request(d.getJobId());
    }
    double share = 0;
    for (var a : d.getAssignments()) {
      share += a.getShare();
    }
    int whole = (int) Math.max(1, Math.round(share));
    return new JobRequest(d.getJobId(), "", "", "", io.tideline.core.model.WorkloadClass.TRAINING,
        false, false, false, null, whole, share < 1 ? share : 1.0, 1, 0, List.of(),
        d.getDecidedAt(), null, 0, null, 0);
  }

  private RuleTraceEntry viewLine(long requestVersion) {
    String detail = "view: " + nodes.size() + " nodes, " + running.size()
        + " running jobs, placement decisions up to ledger v" + ledgerVersion
        + (requestVersion != ledgerVersion ? " (decided for v" + requestVersion + ")" : "");
    if (!unplaced.isEmpty()) {
      detail += "; left out of the feasibility view (events in flight): " + unplaced;
    }
    return new RuleTraceEntry(VIEW, "O2 inputs", "PASS", detail);
  }

  /** P6: the next start of the nightly trough after {@code at} (UTC). */
  private Instant nextOffPeak(Instant at) {
    LocalDate day = at.atZone(ZoneOffset.UTC).toLocalDate();
    Instant t = day.atTime(policy.offPeakStart()).toInstant(ZoneOffset.UTC);
    return t.isAfter(at) ? t : day.plusDays(1).atTime(policy.offPeakStart())
        .toInstant(ZoneOffset.UTC);
  }

  // =================================================================== outputs

  private void publish(String decisionId, String requestId, String preemptorId,
      PreemptionDecision d, long version, PreemptionTrigger trigger, List<RuleTraceEntry> head) {
    List<RuleTraceEntry> trace = new ArrayList<>(head);
    trace.addAll(compact(d.trace(), preemptorId));
    List<io.tideline.events.Victim> victims = new ArrayList<>();
    for (Victim v : d.victims()) {
      victims.add(io.tideline.events.Victim.newBuilder().setJobId(v.jobId())
          .setTenant(v.tenant() == null ? "" : v.tenant())
          .setUser(v.user() == null ? "" : v.user()).setScore(v.score())
          .setGpus(v.cost().gpusHeld()).setCostGpuHours(v.cost().gpuHours())
          .setQueueBoost(v.compensation().queueBoost().toSeconds() / 60.0)
          .setRetryAfter(v.compensation().offPeakRetryAt())
          .setSharedPoolFallback(v.compensation().sharedPoolFallback()).build());
    }
    emit(io.tideline.events.PreemptionDecision.newBuilder().setDecisionId(decisionId)
        .setRequestId(requestId).setCluster(cluster).setPreemptorJobId(preemptorId)
        .setDecidedAt(d.decidedAt())
        .setOutcome(d.preempts() ? PreemptionOutcome.PREEMPT : PreemptionOutcome.REFUSED)
        .setPreemptorScore(d.preemptorScore()).setVictims(victims)
        .setTotalCostGpuHours(d.totalCostGpuHours()).setGainGpuHours(d.gainGpuHours())
        .setLedgerVersion(version).setPolicyVersion(d.policyVersion()).setTrace(trace)
        .setTrigger(trigger.name()).build());
  }

  private void publishRefusal(String decisionId, String requestId, String preemptorId,
      Instant at, long version, PreemptionTrigger trigger, List<RuleTraceEntry> trace) {
    emit(io.tideline.events.PreemptionDecision.newBuilder().setDecisionId(decisionId)
        .setRequestId(requestId).setCluster(cluster).setPreemptorJobId(preemptorId)
        .setDecidedAt(at).setOutcome(PreemptionOutcome.REFUSED).setPreemptorScore(0)
        .setVictims(List.of()).setTotalCostGpuHours(0).setGainGpuHours(0)
        .setLedgerVersion(version).setPolicyVersion(policy.rules().policyVersion())
        .setTrace(trace).setTrigger(trigger.name()).build());
  }

  private void emit(io.tideline.events.PreemptionDecision d) {
    byte[] b = fx.emit(TopicCatalogue.PREEMPTION_DECISIONS, cluster, d);
    fx.keep(d.getDecisionId(), b);
  }

  /**
   * The core's trace as contract entries: every line about the preemptor and every candidate
   * taken or skipped; refused candidates one by one up to the configured maximum, the rest counted
   * per rule — so a decision over 10,000 jobs stays a readable, bounded message.
   */
  private List<RuleTraceEntry> compact(List<TraceEntry> trace, String preemptorId) {
    List<RuleTraceEntry> out = new ArrayList<>();
    Map<String, Integer> more = new LinkedHashMap<>();
    int refusals = 0;
    TraceEntry last = trace.isEmpty() ? null : trace.get(trace.size() - 1);
    for (TraceEntry e : trace) {
      if (e == last) {
        continue;
      }
      boolean candidateRefusal = e.result() == TraceEntry.Result.REFUSE
          && !e.subject().equals(preemptorId);
      if (candidateRefusal && ++refusals > policy.traceCandidatesMax()) {
        more.merge(e.rule().label(), 1, Integer::sum);
        continue;
      }
      out.add(entry(e));
    }
    more.forEach((rule, n) -> out.add(new RuleTraceEntry(VIEW, rule, "REFUSE", n
        + " more candidate(s) refused by this rule (trace capped at "
        + policy.traceCandidatesMax() + " refusals)")));
    if (last != null) {
      out.add(entry(last));
    }
    return out;
  }

  private static RuleTraceEntry entry(TraceEntry e) {
    return new RuleTraceEntry(e.subject(), e.rule().label(), e.result().name(), e.detail());
  }

  // =================================================================== helpers

  private void advance(Instant t) {
    if (t != null && t.isAfter(now)) {
      now = t;
      fx.put(META, "now", bytes(Long.toString(now.toEpochMilli())));
    }
  }

  /** Inventory → core node (placement's mapping: an NVLink island label, else the node). */
  static Node toNode(NodeInventory n) {
    var p = n.getSwitchPath();
    String island = n.getLabels() == null ? null : n.getLabels().get("nvlinkIsland");
    return new Node(n.getNodeId(), n.getGpuModel(), n.getGpuCount(),
        island == null || island.isBlank() ? n.getNodeId() : island,
        new SwitchPath(p.getCoreSwitch(), p.getAggregationSwitch(), p.getAccessSwitch()));
  }

  static List<GpuAssignment> fromEvents(List<io.tideline.events.GpuAssignment> as) {
    List<GpuAssignment> out = new ArrayList<>(as.size());
    for (io.tideline.events.GpuAssignment a : as) {
      out.add(new GpuAssignment(a.getNodeId(), a.getGpuIndex(), a.getShare()));
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private <T> T decode(byte[] b) {
    return (T) deserializer.deserialize(PreemptionTopology.VIEW_STORE, b);
  }

  private static String str(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
