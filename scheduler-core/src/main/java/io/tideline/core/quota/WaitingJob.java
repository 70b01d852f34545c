package io.tideline.core.quota;

import io.tideline.core.model.JobRequest;
import java.time.Instant;

/**
 * A job waiting for quota, with the one piece of history admission needs about it.
 *
 * @param job the submission
 * @param lastPreemptedAt when it was last preempted, or {@code null} (P3 cooldown)
 */
public record WaitingJob(JobRequest job, Instant lastPreemptedAt) {

  public static WaitingJob fresh(JobRequest job) {
    return new WaitingJob(job, null);
  }
}
