package io.tideline.core.cluster.state;

import io.tideline.core.cluster.Allocation;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.model.JobRequest;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A running job's allocation in the ledger: the request it was bound with, the GPU shares it
 * holds, the ledger version that bound this allocation (its identity: a job released and bound
 * again is another allocation) and when it was bound.
 *
 * @param job the request the allocation was made for
 * @param assignments GPU shares held
 * @param boundAt ledger version of the change that bound it
 * @param boundTime event time of that change
 * @param workers for a GPU-less job (ADR 0030): node id → its pods there; empty for a job with
 *     GPUs (its workers follow from the assignments)
 */
public record Binding(JobRequest job, List<GpuAssignment> assignments, long boundAt,
    Instant boundTime, SortedMap<String, Integer> workers) {

  public Binding {
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(boundTime, "boundTime");
    assignments = List.copyOf(assignments);
    workers = workers == null || workers.isEmpty() ? Collections.emptySortedMap()
        : Collections.unmodifiableSortedMap(new TreeMap<>(workers));
  }

  /** A job bound to GPUs. */
  public Binding(JobRequest job, List<GpuAssignment> assignments, long boundAt,
      Instant boundTime) {
    this(job, assignments, boundAt, boundTime, null);
  }

  /**
   * What the binding holds on the nodes: its GPU shares and, charged per worker, its resources;
   * a GPU-less job's pods where they were bound.
   *
   * @throws IllegalArgumentException when the binding holds nothing (no share, no worker)
   */
  public Allocation allocation() {
    return workers.isEmpty() ? new Allocation(job, assignments)
        : new Allocation(job, assignments, workers);
  }

  /** Whether the binding holds anything on node {@code nodeId}. */
  public boolean on(String nodeId) {
    if (workers.containsKey(nodeId)) {
      return true;
    }
    for (GpuAssignment a : assignments) {
      if (a.nodeId().equals(nodeId)) {
        return true;
      }
    }
    return false;
  }

  /** The job id. */
  public String jobId() {
    return job.jobId();
  }

  /** Total GPU share held. */
  public double gpuShare() {
    double s = 0;
    for (GpuAssignment a : assignments) {
      s += a.share();
    }
    return s;
  }
}
