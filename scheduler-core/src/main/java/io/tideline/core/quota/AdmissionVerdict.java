package io.tideline.core.quota;

import io.tideline.core.trace.TraceEntry;
import java.time.Instant;
import java.util.List;

/**
 * Quota's answer to a submission, with everything the placement, preemption and notifier services
 * and an audit replay need: the tier, the split between guaranteed and borrowed GPUs, the borrowers
 * to reclaim, why, what would unblock a queued job, the rule trace and the policy version.
 *
 * @param jobId the job
 * @param queue path of the queue it is charged to, or {@code null} if none resolved
 * @param verdict the outcome
 * @param guaranteedGpus GPUs counted against the queue's guarantee (0 unless admitted)
 * @param borrowedGpus GPUs borrowed from the shared pool (0 unless {@link Verdict#SHARED})
 * @param reclaimJobIds borrowing jobs to preempt so a guaranteed job fits (Q3 reclaim), in order
 * @param preemptionRightGranted W4: whether the job may preempt others
 * @param reason one line: why this verdict
 * @param unblockedBy for {@link Verdict#QUEUED}, what would let it run; otherwise empty
 * @param trace every rule consulted, in order
 * @param policyVersion rules version + "/" + definition version
 * @param decidedAt the {@code now} of the decision
 */
public record AdmissionVerdict(
    String jobId,
    String queue,
    Verdict verdict,
    double guaranteedGpus,
    double borrowedGpus,
    List<String> reclaimJobIds,
    boolean preemptionRightGranted,
    String reason,
    String unblockedBy,
    List<TraceEntry> trace,
    String policyVersion,
    Instant decidedAt) {

  public AdmissionVerdict {
    reclaimJobIds = List.copyOf(reclaimJobIds);
    trace = List.copyOf(trace);
  }

  /** Whether the job may start (GUARANTEED or SHARED). */
  public boolean admitted() {
    return verdict == Verdict.GUARANTEED || verdict == Verdict.SHARED;
  }

  /** Whether the job runs on preemptible capacity. */
  public boolean preemptible() {
    return verdict == Verdict.SHARED;
  }

  /** The allocation an admitting verdict creates. */
  public Allocation allocation() {
    if (!admitted()) {
      throw new IllegalStateException("job " + jobId + " was not admitted: " + verdict);
    }
    return new Allocation(jobId, queue, guaranteedGpus, borrowedGpus, decidedAt);
  }
}
