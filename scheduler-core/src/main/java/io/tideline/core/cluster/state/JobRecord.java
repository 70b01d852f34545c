package io.tideline.core.cluster.state;

import io.tideline.core.model.JobRequest;
import java.util.Objects;

/**
 * A submitted job and quota's latest verdict on it.
 *
 * @param submitted the submission as made
 * @param admission quota's verdict, or {@code null} before one arrived
 */
public record JobRecord(JobRequest submitted, Admission admission) {

  public JobRecord {
    Objects.requireNonNull(submitted, "submitted");
  }

  /** The job id. */
  public String id() {
    return submitted.jobId();
  }

  /**
   * The job as the schedulers see it (W4): the submission with quota's granted rights — without a
   * verdict it is neither preemptible nor allowed to preempt, whatever it asked for.
   */
  public JobRequest request() {
    JobRequest j = submitted;
    boolean preemptible = admission != null && admission.preemptible();
    boolean right = admission != null && admission.preemptionRight();
    if (j.preemptible() == preemptible && j.preemptionRight() == right) {
      return j;
    }
    return new JobRequest(j.jobId(), j.tenant(), j.team(), j.user(), j.workloadClass(),
        j.critical(), preemptible, right, j.serviceId(), j.gpuCount(), j.gpuShare(), j.gangSize(),
        j.nodes(), j.allowedGpuModels(), j.submittedAt(), j.deadline(),
        j.expectedDurationSeconds(), j.checkpoint(), j.dataCacheGb(), j.resources());
  }

  /** This record with another verdict. */
  public JobRecord withAdmission(Admission a) {
    return new JobRecord(submitted, a);
  }
}
