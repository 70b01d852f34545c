package io.tideline.quota.stream;

import io.tideline.core.model.JobRequest;
import io.tideline.core.pricing.ChargeBasis;
import java.time.Instant;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What the single writer keeps about one job (store {@code quota-jobs}, key = job id).
 *
 * @param request the accepted submission
 * @param status where the job stands
 * @param lastPreemptedAt P3: when it was last preempted, or {@code null}
 * @param verdict the last verdict given
 * @param basis B1 charge basis of its current run (reserved on a guarantee, on demand when shared)
 * @param meteredUntil end of the last billed piece of its current run, or {@code null} if not running
 * @param samples Q7 utilisation by sample instant (epoch ms): [sum of GPU utilisation in [0, 1],
 *     number of GPUs sampled]
 * @param lastReclaim the last Q7 recommendation published ("SHRINK:2"), so it is not repeated
 */
public record JobEntry(JobRequest request, Status status, Instant lastPreemptedAt,
    VerdictView verdict, ChargeBasis basis, Instant meteredUntil,
    SortedMap<Long, double[]> samples, String lastReclaim) {

  /** A job's status as quota sees it. */
  public enum Status {
    /** Waiting for quota (QUEUED, or preempted and waiting again). */
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

  public JobEntry {
    samples = samples == null ? new TreeMap<>() : new TreeMap<>(samples);
  }

  public static JobEntry waiting(JobRequest request) {
    return new JobEntry(request, Status.WAITING, null, null, null, null, null, null);
  }

  JobEntry with(Status s) {
    return new JobEntry(request, s, lastPreemptedAt, verdict, basis, meteredUntil, samples,
        lastReclaim);
  }

  JobEntry withVerdict(VerdictView v, Status s, ChargeBasis b) {
    return new JobEntry(request, s, lastPreemptedAt, v, b, meteredUntil, samples, lastReclaim);
  }

  JobEntry preempted(Instant at) {
    return new JobEntry(request, Status.WAITING, at, verdict, basis, null, null, null);
  }

  JobEntry metered(Instant until) {
    return new JobEntry(request, status, lastPreemptedAt, verdict, basis, until, samples,
        lastReclaim);
  }

  JobEntry stopped(Status s) {
    return new JobEntry(request, s, lastPreemptedAt, verdict, basis, null, null, null);
  }

  JobEntry withSamples(SortedMap<Long, double[]> s) {
    return new JobEntry(request, status, lastPreemptedAt, verdict, basis, meteredUntil, s,
        lastReclaim);
  }

  JobEntry withLastReclaim(String r) {
    return new JobEntry(request, status, lastPreemptedAt, verdict, basis, meteredUntil, samples, r);
  }
}
