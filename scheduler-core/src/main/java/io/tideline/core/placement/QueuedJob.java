package io.tideline.core.placement;

import io.tideline.core.model.JobRequest;
import java.util.Objects;

/**
 * A waiting job with the standing the queue sorts it by (see {@link QueueOrder}).
 *
 * @param job the request
 * @param quota the quota verdict rank
 * @param fairShare its queue's fair-share usage
 * @param boost compensation owed after a preemption
 */
public record QueuedJob(JobRequest job, QuotaRank quota, FairShare fairShare,
    CompensationBoost boost) {

  public QueuedJob {
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(job.workloadClass(), "job.workloadClass");
    Objects.requireNonNull(job.submittedAt(), "job.submittedAt");
    Objects.requireNonNull(job.jobId(), "job.jobId");
    Objects.requireNonNull(quota, "quota");
    Objects.requireNonNull(fairShare, "fairShare");
    Objects.requireNonNull(boost, "boost");
  }
}
