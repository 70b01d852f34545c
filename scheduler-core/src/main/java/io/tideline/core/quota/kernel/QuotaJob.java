package io.tideline.core.quota.kernel;

import io.tideline.core.model.JobRequest;
import io.tideline.core.pricing.ChargeBasis;
import io.tideline.core.quota.AdmissionVerdict;
import io.tideline.core.quota.Allocation;
import io.tideline.core.quota.IdleRecommendation;
import io.tideline.core.quota.Verdict;
import java.time.Instant;
import java.util.Objects;

/**
 * What the quota kernel keeps about one job (table {@value QuotaKernelState#JOBS}, id = job id).
 *
 * @param request the accepted submission (what a resubmission is compared with)
 * @param status where the job stands
 * @param lastPreemptedAt P3: when it was last preempted (its PREEMPTED fact), or {@code null}
 * @param verdict the last verdict given, or {@code null} before the first tick that decided it
 * @param basis B1 charge basis of its current admission (reserved on a guarantee, on demand when
 *     shared), or {@code null} when not admitted
 * @param meteredUntil end of the last billed piece of its current run, or {@code null} when it does
 *     not run
 * @param allocation what it holds in the ledger (admitted or running), or {@code null}
 * @param lastIdle the last Q7 recommendation published for its current run, so it is not
 *     repeated; {@code null} when none or the job's utilisation justified its GPUs since
 */
public record QuotaJob(JobRequest request, Status status, Instant lastPreemptedAt,
    AdmissionVerdict verdict, ChargeBasis basis, Instant meteredUntil, Allocation allocation,
    IdleMark lastIdle) {

  /** A job's status as quota sees it. */
  public enum Status {
    /** Waiting for quota (new, QUEUED, preempted and waiting again, or withdrawn). */
    WAITING,
    /** Admitted (GUARANTEED or SHARED), not reported started yet. */
    ADMITTED,
    /** Running: metered and watched for idleness. */
    RUNNING,
    /** Rejected: will never run as submitted. */
    REJECTED,
    /** Completed or failed: its quota was released. */
    DONE
  }

  /**
   * A Q7 recommendation as remembered.
   *
   * @param action SHRINK or RECLAIM
   * @param gpus the GPUs recommended
   */
  public record IdleMark(IdleRecommendation.Action action, int gpus) {}

  public QuotaJob {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(status, "status");
  }

  /** A new submission, waiting for its first verdict. */
  public static QuotaJob waiting(JobRequest request) {
    return new QuotaJob(request, Status.WAITING, null, null, null, null, null, null);
  }

  public String id() {
    return request.jobId();
  }

  /** Whether its last verdict let it start. */
  public boolean admittedByVerdict() {
    return verdict != null && (verdict.verdict() == Verdict.GUARANTEED
        || verdict.verdict() == Verdict.SHARED);
  }

  QuotaJob with(Status s) {
    return new QuotaJob(request, s, lastPreemptedAt, verdict, basis, meteredUntil, allocation,
        lastIdle);
  }

  QuotaJob withVerdict(AdmissionVerdict v, Status s, ChargeBasis b, Allocation a) {
    return new QuotaJob(request, s, lastPreemptedAt, v, b, meteredUntil, a, lastIdle);
  }

  QuotaJob withAllocation(Allocation a) {
    return new QuotaJob(request, status, lastPreemptedAt, verdict, basis, meteredUntil, a,
        lastIdle);
  }

  QuotaJob started(Instant at, Allocation a) {
    return new QuotaJob(request, Status.RUNNING, lastPreemptedAt, verdict, basis, at, a, null);
  }

  QuotaJob preempted(Instant at) {
    return new QuotaJob(request, Status.WAITING, at, verdict, basis, null, null, null);
  }

  /** Waiting again without a preemption (its admission withdrawn before it started). */
  QuotaJob withdrawn(AdmissionVerdict v) {
    return new QuotaJob(request, Status.WAITING, lastPreemptedAt, v, null, null, null, null);
  }

  QuotaJob metered(Instant until) {
    return new QuotaJob(request, status, lastPreemptedAt, verdict, basis, until, allocation,
        lastIdle);
  }

  QuotaJob stopped(Status s) {
    return new QuotaJob(request, s, lastPreemptedAt, verdict, basis, null, null, null);
  }

  QuotaJob withLastIdle(IdleMark m) {
    return new QuotaJob(request, status, lastPreemptedAt, verdict, basis, meteredUntil, allocation,
        m);
  }
}
