package io.tideline.core.quota.kernel;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A Q3 guarantee reclaim in flight (table {@value QuotaKernelState#RECLAIMS}, id = the guaranteed
 * job): quota admitted {@code beneficiaryJobId} GUARANTEED against GPUs that running borrowers
 * hold, and asked for them on {@code quota.reclaims}. Until each borrower's PREEMPTED (or its
 * COMPLETED / FAILED) arrives it still holds its GPUs in the ledger — billed, accruing fair-share
 * usage — but counts as gone when admission computes what is free, so its GPUs are counted once:
 * as the beneficiary's.
 *
 * @param reclaimId the id of the last request ({@code <cluster>/guarantee/<job>/<tick ms>})
 * @param beneficiaryJobId the guaranteed job
 * @param queue its queue
 * @param gpus the GPUs it was admitted for
 * @param borrowers the running borrowers still to stop, in quota's order
 * @param withdrawn borrowers that were admitted but not started when the beneficiary was admitted,
 *     with the allocation they had: quota withdrew their admission itself; kept so that one placed
 *     before the withdrawal reached placement (its STARTED arrives later) is accounted again with
 *     that allocation and joins {@code borrowers}
 * @param attempt how many times it was requested
 * @param firstRequestedAt the tick of the first request
 * @param requestedAt the tick of the last request
 */
public record PendingReclaim(String reclaimId, String beneficiaryJobId, String queue, double gpus,
    List<String> borrowers, List<Withdrawn> withdrawn, int attempt, Instant firstRequestedAt, Instant requestedAt) {

  /**
   * A borrower whose admission quota withdrew before it started.
   *
   * @param jobId the borrower
   * @param queue the queue it was admitted to
   * @param guaranteedGpus the part of its admission on its queue's floor
   * @param borrowedGpus the part borrowed
   */
  public record Withdrawn(String jobId, String queue, double guaranteedGpus,
      double borrowedGpus) {}

  public PendingReclaim {
    Objects.requireNonNull(reclaimId, "reclaimId");
    Objects.requireNonNull(beneficiaryJobId, "beneficiaryJobId");
    borrowers = List.copyOf(borrowers);
    withdrawn = List.copyOf(withdrawn);
  }

  /** This reclaim without {@code jobId} among its borrowers or withdrawn jobs. */
  PendingReclaim without(String jobId) {
    return new PendingReclaim(reclaimId, beneficiaryJobId, queue, gpus,
        borrowers.stream().filter(b -> !b.equals(jobId)).toList(),
        withdrawn.stream().filter(w -> !w.jobId().equals(jobId)).toList(), attempt,
        firstRequestedAt, requestedAt);
  }

  /** The withdrawn borrower {@code jobId}, or {@code null}. */
  public Withdrawn withdrawn(String jobId) {
    return withdrawn.stream().filter(w -> w.jobId().equals(jobId)).findFirst().orElse(null);
  }

  /** This reclaim with withdrawn {@code jobId} running after all: a borrower to stop. */
  PendingReclaim rejoined(String jobId) {
    List<String> b = new java.util.ArrayList<>(borrowers);
    b.add(jobId);
    return new PendingReclaim(reclaimId, beneficiaryJobId, queue, gpus, b,
        withdrawn.stream().filter(w -> !w.jobId().equals(jobId)).toList(), attempt,
        firstRequestedAt, requestedAt);
  }

  /** This reclaim requested again at {@code at} under {@code id}. */
  PendingReclaim again(String id, Instant at) {
    return new PendingReclaim(id, beneficiaryJobId, queue, gpus, borrowers, withdrawn,
        attempt + 1, firstRequestedAt, at);
  }
}
