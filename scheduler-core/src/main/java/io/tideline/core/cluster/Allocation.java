package io.tideline.core.cluster;

import io.tideline.core.model.JobRequest;
import java.util.List;
import java.util.Objects;

/**
 * A running job in the ledger: the request it was placed for (so reservations, migrations and
 * preemption can reason about its class, service and preemptibility) and the GPU shares it holds.
 *
 * @param job the request the job was admitted with
 * @param assignments the GPU shares it holds, in the order placement chose them
 */
public record Allocation(JobRequest job, List<GpuAssignment> assignments) {

  public Allocation {
    Objects.requireNonNull(job, "job");
    assignments = List.copyOf(assignments);
    if (assignments.isEmpty()) {
      throw new IllegalArgumentException("allocation of " + job.jobId() + " holds no GPU");
    }
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

  /** Whether every assignment is on the given node. */
  public boolean onlyOn(String nodeId) {
    for (GpuAssignment a : assignments) {
      if (!a.nodeId().equals(nodeId)) {
        return false;
      }
    }
    return true;
  }
}
