package io.tideline.core.preemption;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.model.JobRequest;
import io.tideline.core.placement.Placer;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;

/**
 * The feasibility question of victim selection, answered by the placement code itself: would the
 * preemptor be placed — with its gang, topology and model constraints, reservations honoured — if
 * the candidate victims released their GPUs? A GPU count would call a set feasible whose freed GPUs
 * are scattered over nodes no gang can use; this cannot.
 *
 * <p>Monotone as {@link FeasibilityProbe} requires: releasing more jobs never removes free GPUs.
 */
public final class PlacementProbe implements FeasibilityProbe {

  private final Placer placer;
  private final ClusterSnapshot snapshot;
  private final JobRequest preemptor;
  private final Instant now;

  /**
   * @param placer the placement policy in force
   * @param snapshot the allocation ledger the request was made against
   * @param preemptor the job that needs room, with its full shape
   * @param now event time of the decision
   */
  public PlacementProbe(Placer placer, ClusterSnapshot snapshot, JobRequest preemptor, Instant now) {
    this.placer = Objects.requireNonNull(placer, "placer");
    this.snapshot = Objects.requireNonNull(snapshot, "snapshot");
    this.preemptor = Objects.requireNonNull(preemptor, "preemptor");
    this.now = Objects.requireNonNull(now, "now");
  }

  @Override
  public boolean feasibleWithout(PreemptionRequest request, Set<String> evictedJobIds) {
    if (!request.jobId().equals(preemptor.jobId())) {
      throw new IllegalArgumentException("probe built for " + preemptor.jobId()
          + " asked about " + request.jobId());
    }
    return placer.decideIfReleased(now, snapshot, preemptor, evictedJobIds).placed();
  }
}
