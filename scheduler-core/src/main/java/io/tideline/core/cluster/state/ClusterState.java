package io.tideline.core.cluster.state;

import io.tideline.core.admission.Resubmission;
import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.GpuRef;
import io.tideline.core.cluster.Node;
import io.tideline.core.cluster.Reservation;
import io.tideline.core.cluster.Topology;
import io.tideline.core.cluster.state.ClusterFact.Admitted;
import io.tideline.core.cluster.state.ClusterFact.Lifecycle;
import io.tideline.core.cluster.state.ClusterFact.NodeObserved;
import io.tideline.core.cluster.state.ClusterFact.Submitted;
import io.tideline.core.cluster.state.LedgerChange.Bound;
import io.tideline.core.cluster.state.LedgerChange.HoldDropped;
import io.tideline.core.cluster.state.LedgerChange.HoldSet;
import io.tideline.core.cluster.state.LedgerChange.Released;
import io.tideline.core.cluster.state.LedgerChange.ReservationDropped;
import io.tideline.core.cluster.state.LedgerChange.ReservationSet;
import io.tideline.core.kernel.Journal;
import io.tideline.core.kernel.Table;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * What the schedulers know of one cluster — the one model of it: nodes, submitted jobs and
 * quota's verdicts, the executor's facts about each job, and the allocation ledger (running jobs,
 * holds, service reservations, version). Immutable; {@link #apply} is the one fold of
 * {@link ClusterFact}s into it, used by placement on its own changes and by every follower of
 * {@code placement.ledger} (preemption), so they cannot model the cluster differently.
 *
 * <p>The fold's rules, in the order {@link #apply} checks them:
 * <ol>
 *   <li><b>Inventory.</b> A record equal to the known one changes nothing. A node that LEFT is
 *       gone: the jobs with a GPU on it lose their allocation ({@link Folded#lost}), holds that
 *       would hand its GPUs to a job are dropped ({@link Folded#orphans}: their holders must queue
 *       again), migration holds and service reservations keep only their GPUs elsewhere. A node
 *       that joins or changes rebuilds the topology; a change that contradicts running
 *       allocations (fewer GPUs than in use) is refused and changes nothing. DRAINED cordons.</li>
 *   <li><b>Submissions.</b> A repeat with the same content is ignored (idempotent); a different
 *       submission under a known id is refused as a conflict, with the fields that differ — the
 *       core's {@link Resubmission} rule, the one quota applies, so both classify a record
 *       alike.</li>
 *   <li><b>Verdicts</b> replace the job's admission (W4 rights are quota's word: without a verdict
 *       a job is neither preemptible nor allowed to preempt).</li>
 *   <li><b>Lifecycle.</b> Updates the job's facts; COMPLETED or FAILED forgets the job (its
 *       allocation is released by the ledger's own change).</li>
 *   <li><b>Ledger changes</b> set the version they carry and bind, release, hold or reserve. A
 *       follower whose inventory lags keeps an allocation on a node it does not know yet out of
 *       the snapshot ({@link #unplaced()}) until the node arrives.</li>
 * </ol>
 */
public final class ClusterState {

  /** Store table names. */
  public static final String NODES = "nodes";
  public static final String JOBS = "jobs";
  public static final String ADMISSIONS = "admissions";
  public static final String FACTS = "facts";
  public static final String BINDINGS = "bindings";
  public static final String HOLDS = "holds";
  public static final String RESERVATIONS = "reservations";

  /** What applying one fact did beyond the state: what the applier must act on. */
  public record Folded(ClusterState state, List<String> lost, List<String> orphans,
      String refused) {
    public Folded {
      lost = List.copyOf(lost);
      orphans = List.copyOf(orphans);
    }

    static Folded of(ClusterState s) {
      return new Folded(s, List.of(), List.of(), null);
    }

    static Folded refuse(ClusterState s, String why) {
      return new Folded(s, List.of(), List.of(), why);
    }
  }

  private static final ClusterState EMPTY = new ClusterState(Table.empty(NODES),
      Table.empty(JOBS), Table.empty(ADMISSIONS), Table.empty(FACTS), Table.empty(BINDINGS),
      Table.empty(HOLDS), Table.empty(RESERVATIONS), 0, null, List.of());

  private final Table<NodeRecord> nodes;
  private final Table<JobRequest> jobs;
  private final Table<Admission> admissions;
  private final Table<JobFacts> facts;
  private final Table<Binding> bindings;
  private final Table<Hold> holds;
  private final Table<Reservation> reservations;
  private final long version;
  /** Derived from the tables; {@code null} while no node is in the topology. */
  private final ClusterSnapshot snapshot;
  private final List<String> unplaced;

  private ClusterState(Table<NodeRecord> nodes, Table<JobRequest> jobs,
      Table<Admission> admissions, Table<JobFacts> facts, Table<Binding> bindings,
      Table<Hold> holds, Table<Reservation> reservations, long version, ClusterSnapshot snapshot,
      List<String> unplaced) {
    this.nodes = nodes;
    this.jobs = jobs;
    this.admissions = admissions;
    this.facts = facts;
    this.bindings = bindings;
    this.holds = holds;
    this.reservations = reservations;
    this.version = version;
    this.snapshot = snapshot;
    this.unplaced = unplaced;
  }

  /** Nothing known. */
  public static ClusterState empty() {
    return EMPTY;
  }

  /** The state a store held (tables as persisted, the ledger version); the snapshot is rebuilt. */
  public static ClusterState restore(Table<NodeRecord> nodes, Table<JobRequest> jobs,
      Table<Admission> admissions, Table<JobFacts> facts, Table<Binding> bindings,
      Table<Hold> holds, Table<Reservation> reservations, long version) {
    return new ClusterState(nodes, jobs, admissions, facts, bindings, holds, reservations,
        version, null, List.of()).rebuilt();
  }

  // ------------------------------------------------------------------------------ reading

  /** The current ledger, or {@code null} before any node is in service or drained. */
  public ClusterSnapshot snapshot() {
    return snapshot;
  }

  /** The ledger version (number of the last applied {@link LedgerChange}). */
  public long version() {
    return version;
  }

  /** Nodes by id, as inventory last said (LEFT ones included). */
  public Table<NodeRecord> nodes() {
    return nodes;
  }

  /** Submissions by job id. */
  public Table<JobRequest> jobs() {
    return jobs;
  }

  /** Quota's verdicts by job id. */
  public Table<Admission> admissions() {
    return admissions;
  }

  /** Lifecycle facts by job id. */
  public Table<JobFacts> facts() {
    return facts;
  }

  /** Running allocations by job id. */
  public Table<Binding> bindings() {
    return bindings;
  }

  /** Holds by id. */
  public Table<Hold> holds() {
    return holds;
  }

  /** Service reservations by id. */
  public Table<Reservation> reservations() {
    return reservations;
  }

  /** Allocations a follower keeps out of its snapshot while their node is unknown to it. */
  public List<String> unplaced() {
    return unplaced;
  }

  /** Whether {@code jobId} was submitted and is not forgotten. */
  public boolean knows(String jobId) {
    return jobs.has(jobId);
  }

  /** Whether {@code jobId} holds GPUs. */
  public boolean runs(String jobId) {
    return bindings.has(jobId);
  }

  /** The job as the schedulers see it: submission with quota's rights (see {@link JobRecord}). */
  public JobRequest request(String jobId) {
    JobRequest j = jobs.get(jobId);
    return j == null ? null : new JobRecord(j, admissions.get(jobId)).request();
  }

  /** Quota's verdict on {@code jobId}, or {@code null}. */
  public Admission admission(String jobId) {
    return admissions.get(jobId);
  }

  /** Lifecycle facts of {@code jobId} ({@link JobFacts#NONE} if none). */
  public JobFacts factsOf(String jobId) {
    JobFacts f = facts.get(jobId);
    return f == null ? JobFacts.NONE : f;
  }

  // ------------------------------------------------------------------------------ the fold

  /** Applies one fact; see the class rules. */
  public Folded apply(Journal j, ClusterFact fact) {
    Objects.requireNonNull(fact, "fact");
    // Java 17: no pattern switch; the sealed hierarchy keeps this list complete (see permits)
    if (fact instanceof NodeObserved n) {
      return node(j, n.node());
    } else if (fact instanceof Submitted s) {
      return submitted(j, s.job());
    } else if (fact instanceof Admitted a) {
      return Folded.of(with(j, admissions.put(j, a.jobId(), a.admission())));
    } else if (fact instanceof Lifecycle l) {
      return Folded.of(lifecycle(j, l));
    } else if (fact instanceof Bound b) {
      return Folded.of(bound(j, b));
    } else if (fact instanceof Released r) {
      return Folded.of(released(j, r));
    } else if (fact instanceof HoldSet h) {
      return Folded.of(holdSet(j, h));
    } else if (fact instanceof HoldDropped h) {
      return Folded.of(holdDropped(j, h));
    } else if (fact instanceof ReservationSet r) {
      return Folded.of(reservationSet(j, r));
    } else if (fact instanceof ReservationDropped r) {
      return Folded.of(reservationDropped(j, r));
    }
    throw new IllegalArgumentException("unknown fact " + fact);
  }

  private Folded node(Journal j, NodeRecord n) {
    NodeRecord old = nodes.get(n.id());
    if (n.sameAs(old)) {
      return Folded.of(this);
    }
    if (n.status() == NodeStatus.LEFT) {
      return left(j, n);
    }
    ClusterState next = copy(nodes.put(j, n.id(), n), jobs, admissions, facts, bindings, holds,
        reservations, version).rebuilt();
    if (next.unplaced.size() > unplaced.size()) {
      return Folded.refuse(this, "inventory change of " + n.id() + " contradicts the ledger: "
          + next.unplaced.get(next.unplaced.size() - 1));
    }
    return Folded.of(next);
  }

  /** A node LEFT: see rule 1. */
  private Folded left(Journal j, NodeRecord n) {
    String node = n.id();
    List<String> lost = new ArrayList<>();
    Table<Binding> b = bindings;
    for (Binding x : bindings.values()) {
      if (x.on(node)) {
        lost.add(x.jobId());
        b = b.remove(j, x.jobId());
      }
    }
    List<String> orphans = new ArrayList<>();
    Table<Hold> h = holds;
    for (Hold x : holds.values()) {
      List<GpuAssignment> keep = x.assignments().stream()
          .filter(g -> !g.nodeId().equals(node)).toList();
      if (keep.size() == x.assignments().size()) {
        continue;
      }
      if (x.kind() == Hold.Kind.MIGRATION && !keep.isEmpty()) {
        h = h.put(j, x.id(), x.keeping(keep));
      } else {
        h = h.remove(j, x.id());
        if (!x.holder().isEmpty()) {
          orphans.add(x.holder());
        }
      }
    }
    Table<Reservation> r = reservations;
    for (Reservation x : reservations.values()) {
      TreeSet<GpuRef> keep = new TreeSet<>();
      x.gpus().stream().filter(g -> !g.nodeId().equals(node)).forEach(keep::add);
      if (keep.size() == x.gpus().size()) {
        continue;
      }
      r = keep.isEmpty() ? r.remove(j, x.id()) : r.put(j, x.id(), x.withGpus(keep));
    }
    ClusterState next = copy(nodes.put(j, node, n), jobs, admissions, facts, b, h, r, version)
        .rebuilt();
    return new Folded(next, lost, orphans, null);
  }

  /** Rule 2: the core's one resubmission rule ({@link Resubmission}), as quota applies it. */
  private Folded submitted(Journal j, JobRequest job) {
    JobRequest known = jobs.get(job.jobId());
    if (known != null) {
      return Resubmission.classify(known, job) instanceof Resubmission.Conflict c
          ? Folded.refuse(this, c.reason(job.jobId())) : Folded.of(this);
    }
    return Folded.of(with(j, jobs.put(j, job.jobId(), job)));
  }

  private ClusterState lifecycle(Journal j, Lifecycle l) {
    if (l.ends()) {
      return copy(nodes, jobs.remove(j, l.jobId()), admissions.remove(j, l.jobId()),
          facts.remove(j, l.jobId()), bindings, holds, reservations, version)
          .withSnapshot(snapshot, unplaced);
    }
    JobFacts f = factsOf(l.jobId()).after(l.event(), l.at(), l.checkpointAt(), l.cacheWarm(),
        l.progress());
    return copy(nodes, jobs, admissions, facts.put(j, l.jobId(), f), bindings, holds,
        reservations, version).withSnapshot(snapshot, unplaced);
  }

  private ClusterState bound(Journal j, Bound b) {
    JobRequest job = request(b.jobId());
    if (job == null) {
      job = shapeOf(b.jobId(), b.assignments(), b.workers(), b.at());
    }
    Binding binding = new Binding(job, b.assignments(), b.version(), b.at(), b.workers());
    ClusterState next = copy(nodes, jobs, admissions, facts, bindings.put(j, b.jobId(), binding),
        holds, reservations, versionAfter(j, b));
    if (snapshot == null || !unplaced.isEmpty()) {
      return next.rebuilt();
    }
    try {
      ClusterSnapshot s = bindings.has(b.jobId())
          ? snapshot.withoutJobs(java.util.Set.of(b.jobId())) : snapshot;
      return next.withSnapshot(s.withAllocation(binding.allocation())
          .atVersion(next.version), unplaced);
    } catch (IllegalArgumentException e) {
      return next.rebuilt();
    }
  }

  private ClusterState released(Journal j, Released r) {
    ClusterState next = copy(nodes, jobs, admissions, facts, bindings.remove(j, r.jobId()), holds,
        reservations, versionAfter(j, r));
    if (snapshot == null || !unplaced.isEmpty()) {
      return next.rebuilt();
    }
    return next.withSnapshot(snapshot.withoutJobs(java.util.Set.of(r.jobId()))
        .atVersion(next.version), unplaced);
  }

  private ClusterState holdSet(Journal j, HoldSet h) {
    ClusterState next = copy(nodes, jobs, admissions, facts, bindings,
        holds.put(j, h.hold().id(), h.hold()), reservations, versionAfter(j, h));
    return next.rebuilt();
  }

  private ClusterState holdDropped(Journal j, HoldDropped h) {
    return copy(nodes, jobs, admissions, facts, bindings, holds.remove(j, h.holdId()),
        reservations, versionAfter(j, h)).rebuilt();
  }

  private ClusterState reservationSet(Journal j, ReservationSet r) {
    return copy(nodes, jobs, admissions, facts, bindings, holds,
        reservations.put(j, r.reservation().id(), r.reservation()), versionAfter(j, r)).rebuilt();
  }

  private ClusterState reservationDropped(Journal j, ReservationDropped r) {
    return copy(nodes, jobs, admissions, facts, bindings, holds,
        reservations.remove(j, r.reservationId()), versionAfter(j, r)).rebuilt();
  }

  private long versionAfter(Journal j, LedgerChange c) {
    j.touch("meta", "version");
    return Math.max(version, c.version());
  }

  /** A follower's stand-in request for a job bound before its submission reached it. */
  private static JobRequest shapeOf(String jobId, List<GpuAssignment> as,
      java.util.SortedMap<String, Integer> workers, java.time.Instant at) {
    if (as.isEmpty() && !workers.isEmpty()) { // a GPU-less job's pods (ADR 0030), asking nothing known
      int pods = workers.values().stream().mapToInt(Integer::intValue).sum();
      return new JobRequest(jobId, "", "", "", WorkloadClass.TRAINING, false, false, false, null,
          0, 1.0, pods, 0, List.of(), at, null, 0, null, 0);
    }
    double share = 0;
    for (GpuAssignment a : as) {
      share += a.share();
    }
    int whole = (int) Math.max(1, Math.round(share));
    return new JobRequest(jobId, "", "", "", WorkloadClass.TRAINING, false, false, false, null,
        whole, share < 1 ? share : 1.0, 1, 0, List.of(), at, null, 0, null, 0);
  }

  // ------------------------------------------------------------------------------ plumbing

  private ClusterState with(Journal j, Table<?> changed) {
    // only jobs/admissions change through here; the snapshot does not depend on them
    @SuppressWarnings("unchecked")
    ClusterState next = changed.name().equals(JOBS)
        ? copy(nodes, (Table<JobRequest>) changed, admissions, facts, bindings, holds,
            reservations, version)
        : copy(nodes, jobs, (Table<Admission>) changed, facts, bindings, holds, reservations,
            version);
    return next.withSnapshot(snapshot, unplaced);
  }

  private static ClusterState copy(Table<NodeRecord> nodes, Table<JobRequest> jobs,
      Table<Admission> admissions, Table<JobFacts> facts, Table<Binding> bindings,
      Table<Hold> holds, Table<Reservation> reservations, long version) {
    return new ClusterState(nodes, jobs, admissions, facts, bindings, holds, reservations,
        version, null, List.of());
  }

  private ClusterState withSnapshot(ClusterSnapshot s, List<String> left) {
    return new ClusterState(nodes, jobs, admissions, facts, bindings, holds, reservations,
        version, s, left);
  }

  /** This state with its snapshot rebuilt from the tables. */
  private ClusterState rebuilt() {
    List<Node> list = new ArrayList<>();
    for (NodeRecord n : nodes.values()) {
      if (n.status() != NodeStatus.LEFT) {
        list.add(n.node());
      }
    }
    if (list.isEmpty()) {
      List<String> out = new ArrayList<>(bindings.ids());
      return withSnapshot(null, out);
    }
    Topology topo = Topology.of(list);
    ClusterSnapshot.Builder b = ClusterSnapshot.builder(topo);
    List<String> out = new ArrayList<>();
    for (Binding x : bindings.values()) {
      try {
        b.allocate(x.allocation()); // atomic: all shares or none
      } catch (IllegalArgumentException e) {
        out.add(x.jobId() + " (" + e.getMessage() + ")");
      }
    }
    for (Reservation r : reservations.values()) {
      if (fits(topo, r)) {
        b.reserve(r);
      }
    }
    for (Hold h : holds.values()) {
      Reservation r = h.reservation();
      if (!r.gpus().isEmpty() && fits(topo, r)) {
        b.reserve(r);
      }
    }
    for (NodeRecord n : nodes.values()) {
      if (n.status() == NodeStatus.DRAINED) {
        b.cordon(n.id());
      }
    }
    return withSnapshot(b.version(version).build(), out);
  }

  private static boolean fits(Topology topo, Reservation r) {
    for (GpuRef g : r.gpus()) {
      int n = topo.indexOf(g.nodeId());
      if (n < 0 || g.gpuIndex() >= topo.node(n).gpuCount()) {
        return false;
      }
    }
    return true;
  }
}
