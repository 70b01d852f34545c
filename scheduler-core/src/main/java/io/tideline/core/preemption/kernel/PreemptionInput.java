package io.tideline.core.preemption.kernel;

import io.tideline.core.cluster.state.Admission;
import io.tideline.core.cluster.state.ClusterFact;
import io.tideline.core.cluster.state.LedgerChange;
import io.tideline.core.cluster.state.NodeRecord;
import io.tideline.core.kernel.Tick;
import io.tideline.core.kernel.Timed;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * What the preemption kernel reads. Facts (inventory, submissions, verdicts, lifecycle, the
 * ledger's changes) rank before requests (placement's requests, quota's reclaims), so a request
 * is answered on every fact of its instant.
 */
public sealed interface PreemptionInput extends Timed permits PreemptionInput.Inventory,
    PreemptionInput.Submission, PreemptionInput.Verdict, PreemptionInput.Lifecycle,
    PreemptionInput.Ledger, PreemptionInput.Request, PreemptionInput.Reclaim,
    PreemptionInput.ClockTick {

  record Inventory(NodeRecord node) implements PreemptionInput {
    public Inventory {
      Objects.requireNonNull(node, "node");
    }

    @Override public Instant at() { return node.observedAt(); }
    @Override public int rank() { return 0; }
    @Override public String key() { return node.id(); }
  }

  record Submission(JobRequest job) implements PreemptionInput {
    public Submission {
      Objects.requireNonNull(job, "job");
    }

    @Override public Instant at() { return job.submittedAt(); }
    @Override public int rank() { return 1; }
    @Override public String key() { return job.jobId(); }
  }

  record Verdict(String jobId, Admission admission) implements PreemptionInput {
    public Verdict {
      Objects.requireNonNull(jobId, "jobId");
      Objects.requireNonNull(admission, "admission");
    }

    @Override public Instant at() { return admission.decidedAt(); }
    @Override public int rank() { return 2; }
    @Override public String key() { return jobId; }
  }

  record Lifecycle(ClusterFact.Lifecycle fact) implements PreemptionInput {
    public Lifecycle {
      Objects.requireNonNull(fact, "fact");
    }

    @Override public Instant at() { return fact.at(); }
    @Override public int rank() { return 3; }
    @Override public String key() { return fact.jobId(); }
  }

  /** One applied change of placement's ledger ({@code placement.ledger}, keyed by cluster). */
  record Ledger(LedgerChange change, String cluster) implements PreemptionInput {
    public Ledger {
      Objects.requireNonNull(change, "change");
      Objects.requireNonNull(cluster, "cluster");
    }

    @Override public Instant at() { return change.at(); }
    @Override public int rank() { return 4; }
    @Override public String key() { return cluster; }
  }

  /**
   * Placement asks for room ({@code preemption.requests}, keyed by cluster).
   *
   * @param requestId the request
   * @param subject the waiting job, or {@code reservation/<id>}
   * @param preemptorClass its class
   * @param gpuCount GPUs of the shape to fit (a reservation's shortfall)
   * @param gpuShare share of one GPU for a fractional shape
   * @param gangSize workers of the shape
   * @param nodes nodes the shape must span, 0: any
   * @param allowedGpuModels models the shape may use
   * @param trigger UNPLACEABLE or RESERVATION_START
   * @param ledgerVersion the ledger version the request was made on
   * @param requestedAt when
   * @param reservationId the starting reservation, or {@code null}
   * @param serviceId its service, or {@code null}
   * @param holders RESERVATION_START: jobs on the reserved GPUs → reserved share each holds
   * @param expectedWaitSeconds placement's estimate of the wait avoided (P5), -1 unknown
   * @param cluster the cluster
   */
  record Request(String requestId, String subject, WorkloadClass preemptorClass, int gpuCount,
      double gpuShare, int gangSize, int nodes, java.util.List<String> allowedGpuModels,
      Trigger trigger, long ledgerVersion, Instant requestedAt, String reservationId,
      String serviceId, Map<String, Double> holders, long expectedWaitSeconds, String cluster)
      implements PreemptionInput {

    /** Why placement asks. */
    public enum Trigger { UNPLACEABLE, RESERVATION_START }

    public Request {
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(subject, "subject");
      Objects.requireNonNull(preemptorClass, "preemptorClass");
      Objects.requireNonNull(trigger, "trigger");
      Objects.requireNonNull(requestedAt, "requestedAt");
      Objects.requireNonNull(cluster, "cluster");
      allowedGpuModels = java.util.List.copyOf(allowedGpuModels);
      holders = Map.copyOf(holders);
    }

    @Override public Instant at() { return requestedAt; }
    @Override public int rank() { return 5; }
    @Override public String key() { return cluster; }
  }

  /**
   * Quota asks to reclaim ({@code quota.reclaims}, keyed by job): an idle job (RECLAIM), an
   * underused one to shrink (SHRINK), or the borrowers whose GPUs a job within its queue's
   * guarantee needs back (GUARANTEE, ADR 0015).
   *
   * @param jobId RECLAIM, SHRINK: the job; GUARANTEE: the guaranteed job (the beneficiary)
   * @param action what quota asks
   * @param recommendedGpus SHRINK: the GPUs it keeps
   * @param borrowers GUARANTEE: the running borrowers to evict, all of them; empty otherwise
   * @param reclaimId quota's id of this request (one decision per id), or {@code null}
   * @param reason quota's reason
   * @param decidedAt when quota decided
   */
  record Reclaim(String jobId, Action action, int recommendedGpus,
      java.util.List<String> borrowers, String reclaimId, String reason, Instant decidedAt)
      implements PreemptionInput {

    /** What quota asks. */
    public enum Action { RECLAIM, SHRINK, GUARANTEE }

    public Reclaim {
      Objects.requireNonNull(jobId, "jobId");
      Objects.requireNonNull(action, "action");
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(decidedAt, "decidedAt");
      borrowers = java.util.List.copyOf(borrowers);
    }

    @Override public Instant at() { return decidedAt; }
    @Override public int rank() { return 6; }
    @Override public String key() { return jobId; }
  }

  record ClockTick(Tick tick) implements PreemptionInput {
    public ClockTick {
      Objects.requireNonNull(tick, "tick");
    }

    @Override public Instant at() { return tick.at(); }
    @Override public int rank() { return Integer.MAX_VALUE; }
    @Override public String key() { return tick.cluster(); }
  }
}
