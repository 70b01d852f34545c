package io.tideline.core.cluster;

import io.tideline.core.model.JobRequest;
import io.tideline.core.model.Resources;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A running job in the ledger: the request it was placed for (so reservations, migrations and
 * preemption can reason about its class, service and preemptibility), the GPU shares it holds and
 * how many of its workers (pods) sit on each node, for which the node is charged the request's
 * CPU, memory and extended resources (ADR 0030).
 *
 * @param job the request the job was admitted with
 * @param assignments the GPU shares it holds, in the order placement chose them; empty only for a
 *     GPU-less job
 * @param workers node id → workers of the job there; for a job with GPUs it follows from the
 *     assignments ({@link JobRequest#workersFor}), for a GPU-less job it is where its pods run;
 *     empty when the job asks no CPU, memory or extended resources and has GPUs
 */
public record Allocation(JobRequest job, List<GpuAssignment> assignments,
    SortedMap<String, Integer> workers) {

  /** A job on GPUs: its workers per node follow from the assignments. */
  public Allocation(JobRequest job, List<GpuAssignment> assignments) {
    this(job, assignments, workersOf(job, assignments));
  }

  public Allocation {
    Objects.requireNonNull(job, "job");
    assignments = List.copyOf(assignments);
    TreeMap<String, Integer> w = new TreeMap<>();
    for (Map.Entry<String, Integer> e : workers.entrySet()) {
      if (e.getValue() <= 0) {
        throw new IllegalArgumentException("allocation of " + job.jobId() + ": workers on "
            + e.getKey() + " must be positive, got " + e.getValue());
      }
      w.put(e.getKey(), e.getValue());
    }
    workers = Collections.unmodifiableSortedMap(w);
    if (assignments.isEmpty() && (!job.gpuless() || workers.isEmpty())) {
      throw new IllegalArgumentException("allocation of " + job.jobId() + " holds no GPU"
          + (job.gpuless() ? " and no worker" : ""));
    }
  }

  /**
   * Workers per node of a job with GPUs (none when it asks nothing besides GPUs): the charge
   * rule the placer decides with.
   */
  public static SortedMap<String, Integer> workersOf(JobRequest job,
      List<GpuAssignment> assignments) {
    if (job.resources().isNone() || assignments.isEmpty()) {
      return Collections.emptySortedMap();
    }
    TreeMap<String, Integer> gpus = new TreeMap<>();
    for (GpuAssignment a : assignments) {
      gpus.merge(a.nodeId(), 1, Integer::sum);
    }
    gpus.replaceAll((node, k) -> job.workersFor(k));
    return gpus;
  }

  /** What this job holds on node {@code nodeId} besides GPUs. */
  public Resources chargeOn(String nodeId) {
    Integer k = workers.get(nodeId);
    return k == null ? Resources.NONE : job.resources().times(k);
  }

  /** The job id. */
  public String jobId() {
    return job.jobId();
  }

  /** Total GPU share held, summed over assignments. */
  public double gpuShare() {
    double sum = 0;
    for (GpuAssignment a : assignments) {
      sum += a.share();
    }
    return sum;
  }

  /** Whether every assignment (and every worker) is on the given node. */
  public boolean onlyOn(String nodeId) {
    for (GpuAssignment a : assignments) {
      if (!a.nodeId().equals(nodeId)) {
        return false;
      }
    }
    for (String n : workers.keySet()) {
      if (!n.equals(nodeId)) {
        return false;
      }
    }
    return true;
  }
}
