package io.tideline.core.placement;

import io.tideline.core.trace.TraceEntry;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.TopologyLevel;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The answer to "where does this job go now?": either PLACED with every GPU share of the gang
 * (all-or-nothing, W3) or UNPLACEABLE with the reason; always with the rule trace and the ledger
 * version it was decided on, so the ledger writer can reject a decision made on a stale view.
 *
 * @param jobId the job
 * @param ledgerVersion version of the snapshot decided on
 * @param placed whether the job was placed
 * @param assignments the GPU shares, sorted by node id and GPU index; empty when unplaceable
 * @param reason why not, or {@code null} when placed
 * @param level smallest topology domain containing the placement, or {@code null} when unplaceable
 * @param crossDomain whether the placement spans more than one access-switch domain (T1)
 * @param score placement quality in [0, 1]: packing fit × bandwidth factor; 0 when unplaceable
 * @param trace the rules applied, in order
 * @param workers for a GPU-less job (ADR 0030): node id → its pods placed there; empty otherwise
 *     (a job with GPUs has its workers where its GPUs are, {@code Allocation.workersOf})
 */
public record PlacementDecision(
    String jobId,
    long ledgerVersion,
    boolean placed,
    List<GpuAssignment> assignments,
    UnplaceableReason reason,
    TopologyLevel level,
    boolean crossDomain,
    double score,
    List<TraceEntry> trace,
    SortedMap<String, Integer> workers) {

  /** A decision on GPUs (the workers follow from the assignments). */
  public PlacementDecision(String jobId, long ledgerVersion, boolean placed,
      List<GpuAssignment> assignments, UnplaceableReason reason, TopologyLevel level,
      boolean crossDomain, double score, List<TraceEntry> trace) {
    this(jobId, ledgerVersion, placed, assignments, reason, level, crossDomain, score, trace,
        Collections.emptySortedMap());
  }

  public PlacementDecision {
    assignments = List.copyOf(assignments);
    trace = List.copyOf(trace);
    workers = workers == null || workers.isEmpty() ? Collections.emptySortedMap()
        : Collections.unmodifiableSortedMap(new TreeMap<>(workers));
  }

  static PlacementDecision unplaceable(String jobId, long version, UnplaceableReason reason,
      List<TraceEntry> trace) {
    return new PlacementDecision(jobId, version, false, List.of(), reason, null, false, 0.0, trace);
  }

  /** Ids of the nodes used, sorted. */
  public SortedSet<String> nodeIds() {
    TreeSet<String> ids = new TreeSet<>(workers.keySet());
    assignments.forEach(a -> ids.add(a.nodeId()));
    return ids;
  }

  /** Total GPU share placed. */
  public double gpuShare() {
    double s = 0;
    for (GpuAssignment a : assignments) {
      s += a.share();
    }
    return s;
  }
}
