package io.tideline.core.cluster.state;

import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.model.JobRequest;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A running job's allocation in the ledger: the request it was bound with, the GPU shares it
 * holds, the ledger version that bound this allocation (its identity: a job released and bound
 * again is another allocation) and when it was bound.
 *
 * @param job the request the allocation was made for
 * @param assignments GPU shares held
 * @param boundAt ledger version of the change that bound it
 * @param boundTime event time of that change
 */
public record Binding(JobRequest job, List<GpuAssignment> assignments, long boundAt,
    Instant boundTime) {

  public Binding {
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(boundTime, "boundTime");
    assignments = List.copyOf(assignments);
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
