package io.tideline.platform.kernel;

import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.GpuRef;
import io.tideline.core.cluster.Node;
import io.tideline.core.cluster.Reservation;
import io.tideline.core.cluster.state.Admission;
import io.tideline.core.cluster.state.Binding;
import io.tideline.core.cluster.state.ClusterFact;
import io.tideline.core.cluster.state.Hold;
import io.tideline.core.cluster.state.JobFacts;
import io.tideline.core.cluster.state.JobFacts.Event;
import io.tideline.core.cluster.state.LedgerChange;
import io.tideline.core.cluster.state.NodeRecord;
import io.tideline.core.cluster.state.NodeStatus;
import io.tideline.core.model.CheckpointProfile;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import io.tideline.core.quota.Verdict;
import io.tideline.events.HoldKind;
import io.tideline.events.JobLifecycle;
import io.tideline.events.LedgerBound;
import io.tideline.events.LedgerHold;
import io.tideline.events.LedgerHoldDropped;
import io.tideline.events.LedgerHoldSet;
import io.tideline.events.LedgerReleased;
import io.tideline.events.LedgerReservation;
import io.tideline.events.LedgerReservationDropped;
import io.tideline.events.LedgerReservationSet;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeInventory;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.SwitchPath;
import io.tideline.platform.intake.JobRequests;
import io.tideline.state.StoredAdmission;
import io.tideline.state.StoredBinding;
import io.tideline.state.StoredFacts;
import io.tideline.state.StoredJob;
import io.tideline.state.StoredNode;
import io.tideline.state.StoredNodeStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The one mapping between the contracts and the core's model of a cluster (ADR 0008): inventory,
 * submissions, verdicts, lifecycle and the ledger's changes as {@link ClusterFact}s, and the
 * {@link io.tideline.core.cluster.state.ClusterState} tables as store records. Placement,
 * preemption, the twin and audit replay all map through here, so none can read an event
 * differently.
 */
public final class ClusterMapping {

  /** Node label naming the NVLink island a node belongs to (rack-scale systems). */
  public static final String NVLINK_ISLAND_LABEL = "nvlinkIsland";

  private ClusterMapping() {}

  // ------------------------------------------------------------------------------ facts

  /** Inventory → node: an NVLink island label, else the node is its own island. */
  public static NodeRecord node(NodeInventory n) {
    var p = n.getSwitchPath();
    String island = n.getLabels() == null ? null : n.getLabels().get(NVLINK_ISLAND_LABEL);
    Node node = new Node(n.getNodeId(), n.getGpuModel(), n.getGpuCount(),
        island == null || island.isBlank() ? n.getNodeId() : island,
        new io.tideline.core.cluster.SwitchPath(p.getCoreSwitch(), p.getAggregationSwitch(),
            p.getAccessSwitch()), JobRequests.resources(n.getAllocatable()));
    NodeStatus status = n.getChange() == NodeChange.LEFT ? NodeStatus.LEFT
        : n.getChange() == NodeChange.DRAINED ? NodeStatus.DRAINED : NodeStatus.ACTIVE;
    return new NodeRecord(node, status, n.getObservedAt());
  }

  /** A submission. */
  public static JobRequest job(io.tideline.events.JobSubmitted e) {
    return JobRequests.fromEvent(e);
  }

  /** A verdict. */
  public static Admission admission(QuotaVerdict v) {
    return new Admission(Verdict.valueOf(v.getVerdict().name()), v.getGpus(), v.getPreemptible(),
        v.getPreemptionRightGranted(), v.getFairShareUsage(),
        v.getQueue() == null ? "" : v.getQueue(), v.getDecidedAt());
  }

  /** A lifecycle event. */
  public static ClusterFact.Lifecycle lifecycle(JobLifecycle l) {
    return new ClusterFact.Lifecycle(l.getJobId(), Event.valueOf(l.getType().name()),
        l.getOccurredAt(), l.getCheckpointAt(), l.getCacheWarm(), l.getProgress(),
        l.getDecisionId());
  }

  public static List<GpuAssignment> assignments(List<io.tideline.events.GpuAssignment> as) {
    List<GpuAssignment> out = new ArrayList<>(as.size());
    for (io.tideline.events.GpuAssignment a : as) {
      out.add(new GpuAssignment(a.getNodeId(), a.getGpuIndex(), a.getShare()));
    }
    return out;
  }

  public static List<io.tideline.events.GpuAssignment> events(List<GpuAssignment> as) {
    List<io.tideline.events.GpuAssignment> out = new ArrayList<>(as.size());
    for (GpuAssignment a : as) {
      out.add(new io.tideline.events.GpuAssignment(a.nodeId(), a.gpuIndex(), a.share()));
    }
    return out;
  }

  // ------------------------------------------------------------------------------ ledger changes

  /** A ledger change as its contract ({@code placement.ledger}). */
  public static io.tideline.events.LedgerChange event(String cluster, LedgerChange c) {
    Object change;
    if (c instanceof LedgerChange.Bound b) {
      change = new LedgerBound(b.jobId(), events(b.assignments()), workers(b.workers()));
    } else if (c instanceof LedgerChange.Released r) {
      change = new LedgerReleased(r.jobId());
    } else if (c instanceof LedgerChange.HoldSet h) {
      change = new LedgerHoldSet(hold(h.hold()));
    } else if (c instanceof LedgerChange.HoldDropped h) {
      change = new LedgerHoldDropped(h.holdId());
    } else if (c instanceof LedgerChange.ReservationSet r) {
      change = new LedgerReservationSet(reservation(r.reservation()));
    } else {
      change = new LedgerReservationDropped(((LedgerChange.ReservationDropped) c).reservationId());
    }
    return io.tideline.events.LedgerChange.newBuilder().setCluster(cluster)
        .setVersion(c.version()).setAt(at(c)).setChange(change).build();
  }

  private static java.time.Instant at(LedgerChange c) {
    return c.at();
  }

  /** A {@code placement.ledger} record as the change a follower folds. */
  public static LedgerChange change(io.tideline.events.LedgerChange e) {
    long v = e.getVersion();
    var at = e.getAt();
    Object c = e.getChange();
    if (c instanceof LedgerBound b) {
      return new LedgerChange.Bound(v, at, b.getJobId(), assignments(b.getAssignments()),
          workers(b.getWorkers()));
    } else if (c instanceof LedgerReleased r) {
      return new LedgerChange.Released(v, at, r.getJobId());
    } else if (c instanceof LedgerHoldSet h) {
      return new LedgerChange.HoldSet(v, at, hold(h.getHold()));
    } else if (c instanceof LedgerHoldDropped h) {
      return new LedgerChange.HoldDropped(v, at, h.getHoldId());
    } else if (c instanceof LedgerReservationSet r) {
      return new LedgerChange.ReservationSet(v, at, reservation(r.getReservation()));
    } else if (c instanceof LedgerReservationDropped r) {
      return new LedgerChange.ReservationDropped(v, at, r.getReservationId());
    }
    throw new IllegalArgumentException("unknown ledger change " + c);
  }

  public static LedgerHold hold(Hold h) {
    return new LedgerHold(h.id(), HoldKind.valueOf(h.kind().name()), h.holder(), h.decisionId(),
        new ArrayList<>(h.waitingFor()), events(h.assignments()));
  }

  public static Hold hold(LedgerHold h) {
    return new Hold(h.getId(), Hold.Kind.valueOf(h.getKind().name()), h.getHolder(),
        h.getDecisionId(), new TreeSet<>(h.getWaitingFor()), assignments(h.getAssignments()));
  }

  public static LedgerReservation reservation(Reservation r) {
    List<io.tideline.events.GpuRef> gpus = new ArrayList<>();
    r.gpus().forEach(g -> gpus.add(new io.tideline.events.GpuRef(g.nodeId(), g.gpuIndex())));
    return new LedgerReservation(r.id(), r.serviceId(), gpus, r.startsAt(), r.releasedAt(),
        r.expectedGpus());
  }

  public static Reservation reservation(LedgerReservation r) {
    TreeSet<GpuRef> gpus = new TreeSet<>();
    r.getGpus().forEach(g -> gpus.add(new GpuRef(g.getNodeId(), g.getGpuIndex())));
    return new Reservation(r.getId(), r.getServiceId(), gpus, r.getStartsAt(),
        r.getReleasedAt(), r.getExpectedGpus() == null ? gpus.size() : r.getExpectedGpus());
  }

  // ------------------------------------------------------------------------------ store records

  public static StoredJob stored(JobRequest j) {
    var cp = j.checkpoint();
    return StoredJob.newBuilder().setJobId(j.jobId()).setTenant(j.tenant()).setTeam(j.team())
        .setUser(j.user())
        .setWorkloadClass(io.tideline.events.WorkloadClass.valueOf(j.workloadClass().name()))
        .setCritical(j.critical()).setPreemptible(j.preemptible())
        .setPreemptionRight(j.preemptionRight()).setServiceId(j.serviceId())
        .setGpuCount(j.gpuCount()).setGpuShare(j.gpuShare()).setGangSize(j.gangSize())
        .setNodes(j.nodes()).setAllowedGpuModels(j.allowedGpuModels())
        .setSubmittedAt(j.submittedAt()).setDeadline(j.deadline())
        .setExpectedDurationSeconds(j.expectedDurationSeconds())
        .setCheckpoint(cp == null ? null : new io.tideline.events.CheckpointProfile(
            cp.stateSizeGb(), cp.storageBandwidthGbPerSec(), cp.writeShards(),
            cp.intervalSeconds()))
        .setDataCacheGb(j.dataCacheGb()).setResources(JobRequests.quantities(j.resources()))
        .build();
  }

  public static JobRequest job(StoredJob s) {
    var cp = s.getCheckpoint();
    return new JobRequest(s.getJobId(), s.getTenant(), s.getTeam(), s.getUser(),
        WorkloadClass.valueOf(s.getWorkloadClass().name()), s.getCritical(), s.getPreemptible(),
        s.getPreemptionRight(), s.getServiceId(), s.getGpuCount(), s.getGpuShare(),
        s.getGangSize(), s.getNodes(), s.getAllowedGpuModels(), s.getSubmittedAt(),
        s.getDeadline(), s.getExpectedDurationSeconds(), cp == null ? null
            : new CheckpointProfile(cp.getStateSizeGb(), cp.getStorageBandwidthGbPerSec(),
                cp.getWriteShards(), cp.getIntervalSeconds()), s.getDataCacheGb(),
        JobRequests.resources(s.getResources()));
  }

  public static StoredNode stored(NodeRecord n) {
    Node x = n.node();
    return StoredNode.newBuilder().setNodeId(x.id()).setGpuModel(x.gpuModel())
        .setGpuCount(x.gpuCount()).setNvlinkIsland(x.nvlinkIsland())
        .setSwitchPath(new SwitchPath(x.path().asw(), x.path().psw(), x.path().dsw()))
        .setStatus(StoredNodeStatus.valueOf(n.status().name())).setObservedAt(n.observedAt())
        .setAllocatable(JobRequests.quantities(x.allocatable())).build();
  }

  public static NodeRecord node(StoredNode s) {
    var p = s.getSwitchPath();
    return new NodeRecord(new Node(s.getNodeId(), s.getGpuModel(), s.getGpuCount(),
        s.getNvlinkIsland(), new io.tideline.core.cluster.SwitchPath(p.getCoreSwitch(),
            p.getAggregationSwitch(), p.getAccessSwitch()),
        JobRequests.resources(s.getAllocatable())),
        NodeStatus.valueOf(s.getStatus().name()), s.getObservedAt());
  }

  public static StoredAdmission stored(Admission a) {
    return new StoredAdmission(io.tideline.events.Verdict.valueOf(a.verdict().name()), a.gpus(),
        a.preemptible(), a.preemptionRight(), a.fairShareUsage(), a.queue(), a.decidedAt());
  }

  public static Admission admission(StoredAdmission s) {
    return new Admission(Verdict.valueOf(s.getVerdict().name()), s.getGpus(), s.getPreemptible(),
        s.getPreemptionRight(), s.getFairShareUsage(), s.getQueue(), s.getDecidedAt());
  }

  public static StoredFacts stored(JobFacts f) {
    return new StoredFacts(f.startedAt(), f.lastPreemptedAt(), f.lastCheckpointAt(),
        f.cacheWarm(), f.progress());
  }

  public static JobFacts facts(StoredFacts s) {
    return new JobFacts(s.getStartedAt(), s.getLastPreemptedAt(), s.getLastCheckpointAt(),
        s.getCacheWarm(), s.getProgress());
  }

  public static StoredBinding stored(Binding b) {
    return new StoredBinding(stored(b.job()), events(b.assignments()), b.boundAt(),
        b.boundTime(), workers(b.workers()));
  }

  public static Binding binding(StoredBinding s) {
    return new Binding(job(s.getJob()), assignments(s.getAssignments()), s.getBoundAt(),
        s.getBoundTime(), workers(s.getWorkers()));
  }

  // ------------------------------------------------------------------------------ workers

  /** A GPU-less job's pods per node as its contract field (ADR 0030); empty for GPU jobs. */
  public static java.util.Map<String, Integer> workers(java.util.SortedMap<String, Integer> w) {
    return new java.util.HashMap<>(w);
  }

  /** The contract's pods per node, in node order (a record from before the field: empty). */
  public static java.util.SortedMap<String, Integer> workers(java.util.Map<String, Integer> w) {
    return w == null ? new TreeMap<>() : new TreeMap<>(w);
  }
}
