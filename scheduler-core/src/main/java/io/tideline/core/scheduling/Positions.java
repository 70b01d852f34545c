package io.tideline.core.scheduling;

import io.tideline.core.model.WorkloadClass.Lane;
import io.tideline.core.placement.QueuedJob;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Queue positions on {@code placement.queue} (P7: the victim's position and ETA): every cycle,
 * each waiting job's 1-based position in its lane and its estimated start
 * ({@link StartEstimator}); published when the position changes or the estimate moves by at least
 * {@link PlacementPolicy#positionTolerance()}; withdrawn (a tombstone) when the job stops waiting.
 */
final class Positions {

  private final PlacementPolicy policy;
  private final StartEstimator estimator;

  Positions(PlacementPolicy policy) {
    this.policy = policy;
    this.estimator = new StartEstimator(policy);
  }

  void publish(Cycle c, Map<Lane, List<QueuedJob>> lanes) {
    Set<String> waiting = new HashSet<>();
    StartEstimator.Ends ends = null;
    for (Lane l : Lane.values()) {
      int pos = 0;
      double ahead = 0;
      for (QueuedJob q : lanes.get(l)) {
        pos++;
        String id = q.job().jobId();
        waiting.add(id);
        if (ends == null) {
          ends = estimator.ends(c);
        }
        StartEstimator.Estimate e = ends.estimate(q.job().gpuDemand(), ahead);
        ahead += q.job().gpuDemand();
        QueueMark m = c.mark(id);
        if (m.position() == pos && close(m.estimatedStart(), e.at())) {
          continue;
        }
        c.mark(id, m.withPublished(pos, e.at()));
        c.effects.add(new PlacementEffect.Position(id, l, pos, e.at(), e.basis(),
            q.boost().levels(), c.now));
      }
    }
    for (String id : List.copyOf(c.queue.ids())) {
      QueueMark m = c.mark(id);
      if (m.position() > 0 && !waiting.contains(id)) {
        c.mark(id, m.withPublished(0, null));
        c.effects.add(new PlacementEffect.PositionCleared(id));
      }
    }
  }

  private boolean close(Instant a, Instant b) {
    if (a == null || b == null) {
      return a == b;
    }
    return Duration.between(a, b).abs().compareTo(policy.positionTolerance()) < 0;
  }
}
