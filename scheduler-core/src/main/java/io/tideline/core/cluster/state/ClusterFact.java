package io.tideline.core.cluster.state;

import io.tideline.core.cluster.state.JobFacts.Event;
import io.tideline.core.model.JobRequest;
import java.time.Instant;
import java.util.Objects;

/**
 * A fact that changes what the schedulers know of one cluster: the input of the one fold
 * ({@link ClusterState#apply}) that placement and preemption share. External facts come from
 * inventory, submissions, quota's verdicts and the executor's lifecycle events; the ledger's own
 * changes ({@link LedgerChange}) come from placement, which applies them to its state and
 * publishes them for followers.
 */
public sealed interface ClusterFact permits ClusterFact.NodeObserved, ClusterFact.Submitted,
    ClusterFact.Admitted, ClusterFact.Lifecycle, LedgerChange {

  /** Event time of the fact. */
  Instant at();

  /** Inventory says this of a node. */
  record NodeObserved(NodeRecord node) implements ClusterFact {
    public NodeObserved {
      Objects.requireNonNull(node, "node");
    }

    @Override
    public Instant at() {
      return node.observedAt();
    }
  }

  /** A job was submitted. */
  record Submitted(JobRequest job) implements ClusterFact {
    public Submitted {
      Objects.requireNonNull(job, "job");
    }

    @Override
    public Instant at() {
      return job.submittedAt();
    }
  }

  /** Quota decided on a job. */
  record Admitted(String jobId, Admission admission) implements ClusterFact {
    public Admitted {
      Objects.requireNonNull(jobId, "jobId");
      Objects.requireNonNull(admission, "admission");
    }

    @Override
    public Instant at() {
      return admission.decidedAt();
    }
  }

  /**
   * The executor reports a lifecycle event of a job.
   *
   * @param jobId the job
   * @param event what happened
   * @param at when
   * @param checkpointAt the last checkpoint it reports, or {@code null}
   * @param cacheWarm whether its data cache is warm, or {@code null}
   * @param progress fraction done, or {@code null}
   * @param decisionId the placement or eviction decision the event answers, or {@code null}
   */
  record Lifecycle(String jobId, Event event, Instant at, Instant checkpointAt, Boolean cacheWarm,
      Double progress, String decisionId) implements ClusterFact {
    public Lifecycle {
      Objects.requireNonNull(jobId, "jobId");
      Objects.requireNonNull(event, "event");
      Objects.requireNonNull(at, "at");
    }

    /** Whether the job is gone for good (its record is forgotten). */
    public boolean ends() {
      return event == Event.COMPLETED || event == Event.FAILED;
    }
  }
}
