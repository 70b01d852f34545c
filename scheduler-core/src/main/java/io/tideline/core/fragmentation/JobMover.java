package io.tideline.core.fragmentation;

import io.tideline.core.cluster.Allocation;
import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.model.WorkloadClass;
import io.tideline.core.placement.PlacementDecision;
import io.tideline.core.placement.Placer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Moves one job on a hypothetical ledger by asking the placer where it would go if it were
 * submitted again with the given nodes closed to it. Shared by both planners.
 */
final class JobMover {

  private final Placer placer;

  JobMover(Placer placer) {
    this.placer = placer;
  }

  /**
   * Whether a job may be migrated at all: it sits on one node (moving part of a multi-node gang
   * restarts all of it), and it is either declared preemptible (W4) or an inference replica, which
   * is moved make-before-break and so never interrupted.
   */
  static boolean movable(Allocation a) {
    if (a.assignments().isEmpty()) {
      return false; // pods without GPUs free no GPU by moving (ADR 0030)
    }
    String node = a.assignments().get(0).nodeId();
    WorkloadClass c = a.job().workloadClass();
    boolean inference = c == WorkloadClass.ONLINE_INFERENCE || c == WorkloadClass.BATCH_INFERENCE;
    return a.onlyOn(node) && (a.job().preemptible() || inference);
  }

  /** The move, or {@code null} when the job fits nowhere outside {@code closed}. */
  Moved move(Instant now, ClusterSnapshot hyp, Allocation a, Set<String> closed, String reason) {
    // 1. take the job out and close the nodes being freed (keeping existing cordons)
    SortedSet<String> cordons = new TreeSet<>(hyp.cordoned());
    cordons.addAll(closed);
    ClusterSnapshot without = hyp.withoutJobs(Set.of(a.jobId()));
    ClusterSnapshot probe = without.withCordoned(cordons);
    // 2. place it as if newly submitted
    PlacementDecision d = placer.decide(now, probe, a.job());
    if (!d.placed()) {
      return null;
    }
    // 3. book it on the hypothetical ledger with the original cordons
    ClusterSnapshot after = Placer.apply(without, a.job(), d);
    return new Moved(new Migration(a.jobId(), a.assignments(), d.assignments(), reason), after);
  }

  /** A planned move and the ledger after it. */
  record Moved(Migration migration, ClusterSnapshot after) {}

  /** Every job moved off, one after the other; {@code null} if any of them fits nowhere. */
  Evacuation evacuate(Instant now, ClusterSnapshot hyp, List<Allocation> jobs, Set<String> closed,
      String reason) {
    ClusterSnapshot trial = hyp;
    List<Migration> moves = new ArrayList<>();
    for (Allocation a : jobs) {
      Moved m = move(now, trial, a, closed, reason);
      if (m == null) {
        return null;
      }
      moves.add(m.migration());
      trial = m.after();
    }
    return new Evacuation(List.copyOf(moves), trial);
  }

  /** The migrations that empty a node, and the ledger after them. */
  record Evacuation(List<Migration> moves, ClusterSnapshot after) {}
}
