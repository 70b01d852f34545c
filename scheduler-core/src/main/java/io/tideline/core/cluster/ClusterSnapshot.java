package io.tideline.core.cluster;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.pcollections.TreePMap;

/**
 * The allocation ledger of one cluster at one version: who holds which GPU shares, which GPUs are
 * reserved for which online service, which nodes are cordoned. Immutable and copy-on-write: every
 * {@code with…} returns a new snapshot with {@code version + 1} sharing unchanged nodes, so
 * decisions run on a consistent view and "what if" questions (preemption: "if these victims were
 * evicted…", see {@link #withoutJobs}) cost no more than the nodes they touch.
 *
 * <p>Invariants, checked on every change: no GPU's shares sum above 1.0 (within
 * {@link #SHARE_EPSILON}); no node's CPU, memory or extended resources it declares are
 * overcommitted ({@link ResourceFit}, ADR 0030).
 */
public final class ClusterSnapshot {

  /** Tolerance for summing fractional shares (0.1 + 0.2 ≠ 0.3 in binary floating point). */
  public static final double SHARE_EPSILON = 1e-9;

  private final Topology topology;
  private final NodeLedger[] ledgers;
  /**
   * Running jobs: a persistent map, so a change costs O(log jobs) and shares the rest with the
   * parent — copying a map of every running job on each placement made {@code apply} cost twice
   * {@code decide} at fleet scale (issue #22).
   */
  private final TreePMap<String, Allocation> allocations;
  /** The maps below, unwrapped: shared with the snapshots derived from this one until they change. */
  private final TreeMap<String, Reservation> ownReservations;
  private final TreeSet<String> ownCordoned;
  private final SortedMap<String, Reservation> reservations;
  private final List<List<Reservation>>[] reservedBy;
  private final SortedSet<String> cordoned;
  private final boolean[] cordonedIdx;
  private final long version;

  /**
   * A snapshot over maps it owns from now on (nobody modifies them afterwards: {@link Builder}
   * hands them over and copies before its next change). {@code reservedBy} and
   * {@code cordonedIdx} are the parent's indexes when reservations and cordons did not change
   * (they are never modified once built), {@code null} to build them.
   */
  private ClusterSnapshot(Topology topology, NodeLedger[] ledgers,
      TreePMap<String, Allocation> allocations, TreeMap<String, Reservation> reservations,
      TreeSet<String> cordoned, long version, List<List<Reservation>>[] reservedBy,
      boolean[] cordonedIdx) {
    this.topology = topology;
    this.ledgers = ledgers;
    this.allocations = allocations;
    this.ownReservations = reservations;
    this.ownCordoned = cordoned;
    this.reservations = Collections.unmodifiableSortedMap(reservations);
    this.cordoned = Collections.unmodifiableSortedSet(cordoned);
    this.version = version;
    this.reservedBy = reservedBy != null ? reservedBy : indexReservations(topology, reservations);
    this.cordonedIdx = cordonedIdx != null ? cordonedIdx : indexCordoned(topology, cordoned);
  }

  /** Reservations per GPU (null for nodes without any, the common case). */
  @SuppressWarnings("unchecked")
  private static List<List<Reservation>>[] indexReservations(Topology topology,
      SortedMap<String, Reservation> reservations) {
    List<List<Reservation>>[] reservedBy = new List[topology.size()];
    for (Reservation r : reservations.values()) {
      for (GpuRef gpu : r.gpus()) {
        int n = requireNode(topology, gpu.nodeId());
        requireGpu(topology, n, gpu.gpuIndex());
        if (reservedBy[n] == null) {
          List<List<Reservation>> perGpu = new ArrayList<>();
          for (int g = 0; g < topology.node(n).gpuCount(); g++) {
            perGpu.add(new ArrayList<>(1));
          }
          reservedBy[n] = perGpu;
        }
        reservedBy[n].get(gpu.gpuIndex()).add(r);
      }
    }
    return reservedBy;
  }

  private static boolean[] indexCordoned(Topology topology, SortedSet<String> cordoned) {
    boolean[] idx = new boolean[topology.size()];
    for (String id : cordoned) {
      idx[requireNode(topology, id)] = true;
    }
    return idx;
  }

  /** An empty ledger (version 0) over {@code nodes}. */
  public static ClusterSnapshot empty(Collection<Node> nodes) {
    return builder(Topology.of(nodes)).build();
  }

  /** A builder for bulk loading a ledger (one copy at the end instead of one per change). */
  public static Builder builder(Topology topology) {
    return new Builder(topology);
  }

  /** The interconnect view. */
  public Topology topology() {
    return topology;
  }

  /** Ledger version; every change increments it. */
  public long version() {
    return version;
  }

  /** The ledger of node {@code node} (topology index). */
  public NodeLedger ledger(int node) {
    return ledgers[node];
  }

  /** The ledger of the node with {@code nodeId}. */
  public NodeLedger ledger(String nodeId) {
    return ledgers[requireNode(nodeId)];
  }

  /** Running jobs by id (immutable). */
  public SortedMap<String, Allocation> allocations() {
    return allocations;
  }

  /** The allocation of {@code jobId}, if it runs. */
  public Optional<Allocation> allocation(String jobId) {
    return Optional.ofNullable(allocations.get(jobId));
  }

  /** Reservations by id (released ones stay until removed; they no longer hold GPUs). */
  public SortedMap<String, Reservation> reservations() {
    return reservations;
  }

  /** Whether any reservation names a GPU of node {@code node}. */
  public boolean hasReservations(int node) {
    return reservedBy[node] != null;
  }

  /** Reservations naming GPU {@code gpu} of node {@code node}; empty for most GPUs. */
  public List<Reservation> reservationsOn(int node, int gpu) {
    return reservedBy[node] == null ? List.of() : reservedBy[node].get(gpu);
  }

  /** Cordoned node ids: placement puts nothing new there. */
  public SortedSet<String> cordoned() {
    return cordoned;
  }

  /** Whether node {@code node} is cordoned. */
  public boolean isCordoned(int node) {
    return cordonedIdx[node];
  }

  /** Whole idle GPUs in the cluster. */
  public int idleGpus() {
    int s = 0;
    for (NodeLedger l : ledgers) {
      s += l.idleGpus();
    }
    return s;
  }

  /** Allocated GPU share over the whole cluster divided by its GPUs, in [0, 1]. */
  public double occupancy() {
    double s = 0;
    for (NodeLedger l : ledgers) {
      s += l.usedShare();
    }
    return topology.totalGpus() == 0 ? 0 : s / topology.totalGpus();
  }

  /** A new version with {@code allocation} added; rejects unknown GPUs, reuse of a job id and overbooking. */
  public ClusterSnapshot withAllocation(Allocation allocation) {
    Builder b = toBuilder();
    b.allocate(allocation);
    return b.build();
  }

  /**
   * A new version in which the given jobs hold nothing: the preemption question "if these victims
   * were evicted, would the preemptor fit?" is a placement on this snapshot. Unknown ids are
   * ignored (the job may already have ended).
   */
  public ClusterSnapshot withoutJobs(Set<String> jobIds) {
    Builder b = toBuilder();
    for (String id : new TreeSet<>(jobIds)) {
      b.release(id);
    }
    return b.build();
  }

  /** A new version with {@code reservation} added, or replacing the one with the same id. */
  public ClusterSnapshot withReservation(Reservation reservation) {
    Builder b = toBuilder();
    b.reserve(reservation);
    return b.build();
  }

  /** A new version without the reservation {@code id}. */
  public ClusterSnapshot withoutReservation(String id) {
    Builder b = toBuilder();
    if (reservations.containsKey(id)) {
      b.reservations().remove(id);
    }
    return b.build();
  }

  /** This ledger numbered {@code v} (everything else shared): the kernels number versions themselves. */
  public ClusterSnapshot atVersion(long v) {
    if (v == version) {
      return this;
    }
    return new ClusterSnapshot(topology, ledgers, allocations, ownReservations, ownCordoned, v,
        reservedBy, cordonedIdx);
  }

  /** A new version in which exactly {@code nodeIds} are cordoned. */
  public ClusterSnapshot withCordoned(Set<String> nodeIds) {
    Builder b = toBuilder();
    b.cordoned().clear();
    b.cordoned().addAll(nodeIds);
    return b.build();
  }

  /** A builder starting from this snapshot, sharing everything until it changes it. */
  private Builder toBuilder() {
    return new Builder(this);
  }

  private int requireNode(String nodeId) {
    return requireNode(topology, nodeId);
  }

  private static int requireNode(Topology topology, String nodeId) {
    int n = topology.indexOf(nodeId);
    if (n < 0) {
      throw new IllegalArgumentException("unknown node " + nodeId);
    }
    return n;
  }

  private static void requireGpu(Topology topology, int node, int gpu) {
    if (gpu >= topology.node(node).gpuCount()) {
      throw new IllegalArgumentException("node " + topology.node(node).id() + " has no GPU "
          + gpu);
    }
  }

  /**
   * Mutable staging area for a snapshot; {@link #build()} freezes it. Not thread-safe.
   * Copy-on-write: a builder started from a snapshot shares its ledgers array, maps and indexes,
   * and copies each only before the first change to it; {@link #build()} hands its maps to the
   * snapshot and copies again before any later change, so a snapshot never sees a change.
   */
  public static final class Builder {
    private final Topology topology;
    private NodeLedger[] ledgers;
    private TreePMap<String, Allocation> allocations;
    private TreeMap<String, Reservation> reservations;
    private TreeSet<String> cordoned;
    private List<List<Reservation>>[] reservedBy;
    private boolean[] cordonedIdx;
    private boolean ledgersShared;
    private boolean reservationsShared;
    private boolean cordonedShared;
    private long version;

    private Builder(Topology topology) {
      this.topology = topology;
      this.ledgers = new NodeLedger[topology.size()];
      for (int i = 0; i < ledgers.length; i++) {
        ledgers[i] = NodeLedger.empty(topology.node(i).gpuCount());
      }
      this.allocations = TreePMap.empty();
      this.reservations = new TreeMap<>();
      this.cordoned = new TreeSet<>();
    }

    private Builder(ClusterSnapshot from) {
      this.topology = from.topology;
      this.ledgers = from.ledgers;
      this.allocations = from.allocations;
      this.reservations = from.ownReservations;
      this.cordoned = from.ownCordoned;
      this.reservedBy = from.reservedBy;
      this.cordonedIdx = from.cordonedIdx;
      this.ledgersShared = true;
      this.reservationsShared = true;
      this.cordonedShared = true;
      this.version = from.version + 1;
    }

    private NodeLedger[] ledgers() {
      if (ledgersShared) {
        ledgers = ledgers.clone();
        ledgersShared = false;
      }
      return ledgers;
    }

    private TreeMap<String, Reservation> reservations() {
      if (reservationsShared) {
        reservations = new TreeMap<>(reservations);
        reservationsShared = false;
      }
      reservedBy = null;
      return reservations;
    }

    private TreeSet<String> cordoned() {
      if (cordonedShared) {
        cordoned = new TreeSet<>(cordoned);
        cordonedShared = false;
      }
      cordonedIdx = null;
      return cordoned;
    }

    /** Adds a running job; same checks as {@link ClusterSnapshot#withAllocation}. */
    public Builder allocate(Allocation allocation) {
      if (allocations.containsKey(allocation.jobId())) {
        throw new IllegalArgumentException("job " + allocation.jobId() + " is already allocated");
      }
      // staged on the side and committed at the end: a refused allocation changes nothing
      java.util.HashMap<Integer, NodeLedger> staged = new java.util.HashMap<>();
      for (GpuAssignment a : allocation.assignments()) {
        int n = topology.indexOf(a.nodeId());
        if (n < 0) {
          throw new IllegalArgumentException("unknown node " + a.nodeId());
        }
        if (a.gpuIndex() >= topology.node(n).gpuCount()) {
          throw new IllegalArgumentException("node " + a.nodeId() + " has no GPU " + a.gpuIndex());
        }
        NodeLedger l = staged.getOrDefault(n, ledgers[n]);
        staged.put(n, l.plus(allocation.jobId(), a.gpuIndex(), a.share(), a.nodeId()));
      }
      // CPU, memory, extended resources of its workers, node by node (ADR 0030)
      for (String nodeId : allocation.workers().keySet()) {
        int n = topology.indexOf(nodeId);
        if (n < 0) {
          throw new IllegalArgumentException("unknown node " + nodeId);
        }
        NodeLedger l = staged.getOrDefault(n, ledgers[n]);
        staged.put(n, l.charge(allocation.jobId(), allocation.chargeOn(nodeId),
            topology.node(n)));
      }
      NodeLedger[] own = ledgers();
      staged.forEach((n, l) -> own[n] = l);
      allocations = allocations.plus(allocation.jobId(), allocation);
      return this;
    }

    /** Removes a running job; unknown ids are ignored. */
    public Builder release(String jobId) {
      if (!allocations.containsKey(jobId)) {
        return this;
      }
      Allocation a = allocations.get(jobId);
      allocations = allocations.minus(jobId);
      TreeSet<String> nodes = new TreeSet<>();
      a.assignments().forEach(x -> nodes.add(x.nodeId()));
      nodes.addAll(a.workers().keySet());
      NodeLedger[] own = ledgers();
      for (String id : nodes) {
        int n = topology.indexOf(id);
        own[n] = own[n].minus(jobId);
      }
      return this;
    }

    /** Adds or replaces a reservation. */
    public Builder reserve(Reservation reservation) {
      reservations().put(reservation.id(), reservation);
      return this;
    }

    /** Cordons a node. */
    public Builder cordon(String nodeId) {
      cordoned().add(nodeId);
      return this;
    }

    /** Sets the ledger version of the snapshot to build. */
    public Builder version(long v) {
      this.version = v;
      return this;
    }

    /** Freezes the staged state; the builder copies before its next change. */
    public ClusterSnapshot build() {
      ClusterSnapshot s = new ClusterSnapshot(topology, ledgers, allocations, reservations,
          cordoned, version, reservedBy, cordonedIdx);
      ledgersShared = true;
      reservationsShared = true;
      cordonedShared = true;
      reservedBy = s.reservedBy;
      cordonedIdx = s.cordonedIdx;
      return s;
    }
  }
}
