package io.tideline.core.scheduling;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.Reservation;
import io.tideline.core.cluster.Topology;
import io.tideline.core.cluster.TopologyLevel;
import io.tideline.core.cluster.state.ClusterFact;
import io.tideline.core.cluster.state.ClusterState;
import io.tideline.core.cluster.state.Hold;
import io.tideline.core.cluster.state.LedgerChange;
import io.tideline.core.kernel.Inbox;
import io.tideline.core.kernel.Journal;
import io.tideline.core.kernel.Table;
import io.tideline.core.model.JobRequest;
import io.tideline.core.scheduling.PlacementEffect.Outcome;
import io.tideline.core.trace.TraceEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;

/**
 * The working copy of one step (KAI's "statement"): the state's values as the step changes them,
 * the journal of changed entities and the effects decided so far. Rules change the ledger only
 * through {@link #change}, which numbers the change, folds it into the cluster with the one fold
 * ({@link ClusterState#apply}) and emits it — so placement's ledger and every follower's are the
 * same fold of the same changes. {@link #commit} freezes the result; a failing step is simply
 * dropped (nothing of it escapes).
 */
final class Cycle {

  final PlacementPolicy policy;
  final Instant now;
  final Journal journal = new Journal();
  final List<PlacementEffect> effects = new ArrayList<>();

  ClusterState cluster;
  Table<PendingRequest> pending;
  Table<QueueMark> queue;
  Table<SlotWindow> forecasts;
  Table<Evicting> evicting;
  Table<ReclaimNamed> named;
  Table<PlacementInput.PreemptionAnswer> parked;
  PlacementMeta meta;
  Inbox<PlacementInput> inbox;

  Cycle(PlacementPolicy policy, Instant now, PlacementState s) {
    this.policy = policy;
    this.now = now;
    this.cluster = s.cluster();
    this.pending = s.pending();
    this.queue = s.queue();
    this.forecasts = s.forecasts();
    this.evicting = s.evicting();
    this.named = s.named();
    this.parked = s.parked();
    this.meta = s.meta();
    this.inbox = s.inbox();
  }

  PlacementState commit() {
    return new PlacementState(cluster, pending, queue, forecasts, evicting, named, parked, meta,
        inbox);
  }

  // ------------------------------------------------------------------------------ reading

  ClusterSnapshot snap() {
    return cluster.snapshot();
  }

  long version() {
    return cluster.version();
  }

  QueueMark mark(String jobId) {
    QueueMark m = queue.get(jobId);
    return m == null ? QueueMark.NONE : m;
  }

  /**
   * The job as placement places it: the cluster's request (quota's rights, W4) with a Q7 shrink
   * applied; {@code null} for a job not known.
   */
  JobRequest request(String jobId) {
    JobRequest j = cluster.request(jobId);
    if (j == null) {
      return null;
    }
    if (policy.partitioned()) {
      j = partitioned(j);
    }
    QueueMark m = mark(jobId);
    if (m.shrinkToGpus() <= 0 || m.shrinkToGpus() >= j.gpuCount()) {
      return j;
    }
    int gpus = m.shrinkToGpus();
    int perWorker = j.gangSize() > 0 && j.gpuCount() % j.gangSize() == 0
        ? j.gpuCount() / j.gangSize() : 1;
    int gang = gpus % perWorker == 0 ? gpus / perWorker : gpus;
    return new JobRequest(j.jobId(), j.tenant(), j.team(), j.user(), j.workloadClass(),
        j.critical(), j.preemptible(), j.preemptionRight(), j.serviceId(), gpus, 1.0, gang, 0,
        j.allowedGpuModels(), j.submittedAt(), j.deadline(),
        m.stretchedSeconds() > 0 ? m.stretchedSeconds() : j.expectedDurationSeconds(),
        j.checkpoint(), j.dataCacheGb(), j.resources());
  }

  /**
   * Hard-split baseline: online inference may use only the inference partition's models, every
   * other job only the others' (node models carry the partition as a suffix).
   */
  private JobRequest partitioned(JobRequest j) {
    String pool = j.workloadClass() == io.tideline.core.model.WorkloadClass.ONLINE_INFERENCE
        ? PlacementKernel.INFERENCE : PlacementKernel.OFFLINE;
    List<String> models = new ArrayList<>();
    if (snap() != null) {
      for (String m : snap().topology().gpuModels()) {
        if (m.endsWith(pool) && (j.allowedGpuModels().isEmpty() || policy.placement().gpuModels()
            .allows(j.allowedGpuModels(), m.substring(0, m.length() - pool.length())))) {
          models.add(m);
        }
      }
    }
    if (models.isEmpty()) {
      models.add("none" + pool);
    }
    return new JobRequest(j.jobId(), j.tenant(), j.team(), j.user(), j.workloadClass(),
        j.critical(), j.preemptible(), j.preemptionRight(), j.serviceId(), j.gpuCount(),
        j.gpuShare(), j.gangSize(), j.nodes(), models, j.submittedAt(), j.deadline(),
        j.expectedDurationSeconds(), j.checkpoint(), j.dataCacheGb(), j.resources());
  }

  // ------------------------------------------------------------------------------ writing

  void mark(String jobId, QueueMark m) {
    queue = m.isNone() ? queue.remove(journal, jobId) : queue.put(journal, jobId, m);
  }

  /** Folds an external fact; returns what it did. */
  ClusterState.Folded fold(ClusterFact fact) {
    ClusterState.Folded f = cluster.apply(journal, fact);
    cluster = f.state();
    return f;
  }

  /** Applies and emits one ledger change (see the class comment). */
  void change(LedgerChange c) {
    if (c.version() != version() + 1) {
      throw new IllegalStateException("ledger change " + c + " does not follow v" + version());
    }
    cluster = cluster.apply(journal, c).state();
    effects.add(new PlacementEffect.Changed(c));
  }

  long next() {
    return version() + 1;
  }

  void bind(String jobId, List<GpuAssignment> assignments) {
    change(new LedgerChange.Bound(next(), now, jobId, assignments));
  }

  /** Binds a job to GPUs, or a GPU-less job's pods to {@code workers} (ADR 0030). */
  void bind(String jobId, List<GpuAssignment> assignments, SortedMap<String, Integer> workers) {
    change(new LedgerChange.Bound(next(), now, jobId, assignments, workers));
  }

  void release(String jobId) {
    if (cluster.runs(jobId)) {
      change(new LedgerChange.Released(next(), now, jobId));
    }
  }

  void setHold(Hold h) {
    change(new LedgerChange.HoldSet(next(), now, h));
  }

  void dropHold(String id) {
    if (cluster.holds().has(id)) {
      change(new LedgerChange.HoldDropped(next(), now, id));
    }
  }

  void setReservation(Reservation r) {
    change(new LedgerChange.ReservationSet(next(), now, r));
  }

  void dropReservation(String id) {
    if (cluster.reservations().has(id)) {
      change(new LedgerChange.ReservationDropped(next(), now, id));
    }
  }

  void decide(String jobId, Outcome outcome, List<GpuAssignment> assignments,
      TopologyLevel level, boolean crossDomain, double score, List<TraceEntry> trace) {
    decide(jobId, outcome, assignments, level, crossDomain, score, trace, null);
  }

  void decide(String jobId, Outcome outcome, List<GpuAssignment> assignments,
      TopologyLevel level, boolean crossDomain, double score, List<TraceEntry> trace,
      SortedMap<String, Integer> workers) {
    effects.add(new PlacementEffect.Decided(policy.cluster() + "/v" + version() + "/" + jobId
        + "/" + outcome, jobId, outcome, assignments, level, crossDomain, score, version(), now,
        trace, workers));
  }

  /**
   * The decision already evicting running job {@code jobId}, or null: an eviction applied and not
   * yet stopped ({@link Evicting}), or a preemption hold waiting for the job to stop.
   */
  String evictionOf(String jobId) {
    Evicting ev = evicting.get(jobId);
    if (ev != null) {
      return ev.decisionId();
    }
    for (Hold h : cluster.holds().values()) {
      if (h.kind() == Hold.Kind.PREEMPT && h.waitingFor().contains(jobId)) {
        return h.decisionId();
      }
    }
    return null;
  }

  void queued(String jobId, List<TraceEntry> trace) {
    decide(jobId, Outcome.QUEUED, List.of(), null, false, 0, trace);
  }

  void count(String counter, String tag) {
    effects.add(new PlacementEffect.Counted(counter, tag));
  }

  void refuse(String reason) {
    effects.add(new PlacementEffect.Refused(reason, -1));
  }

  void refuse(String reason, long inboxSeq) {
    effects.add(new PlacementEffect.Refused(reason, inboxSeq));
  }

  // ------------------------------------------------------------------------------ helpers

  /** The smallest topology level containing every assignment (T1). */
  TopologyLevel levelOf(List<GpuAssignment> as) {
    Topology topo = snap().topology();
    for (TopologyLevel level : TopologyLevel.values()) {
      int d = -1;
      boolean one = true;
      for (GpuAssignment a : as) {
        int n = topo.indexOf(a.nodeId());
        if (n < 0) {
          one = false;
          break;
        }
        int x = topo.domainOf(level, n);
        if (d >= 0 && x != d) {
          one = false;
          break;
        }
        d = x;
      }
      if (one) {
        return level;
      }
    }
    return TopologyLevel.CLUSTER;
  }
}
