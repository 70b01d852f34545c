package io.tideline.core.cluster.state;

import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.Reservation;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One applied change of the allocation ledger, numbered by the ledger version it creates. Placement
 * is the only author: it applies each change to its own {@link ClusterState} and publishes it on
 * {@code placement.ledger}; a follower (preemption, dashboards) folds the same changes with the
 * same code and so holds placement's ledger up to the version it has seen.
 */
public sealed interface LedgerChange extends ClusterFact permits LedgerChange.Bound,
    LedgerChange.Released, LedgerChange.HoldSet, LedgerChange.HoldDropped,
    LedgerChange.ReservationSet, LedgerChange.ReservationDropped {

  /** The ledger version this change creates. */
  long version();

  /**
   * A job now holds exactly {@code assignments} (placed, or moved by a migration), or, for a
   * GPU-less job (ADR 0030), its pods on {@code workers}.
   *
   * @param version ledger version created
   * @param at event time
   * @param jobId the job
   * @param assignments its GPU shares
   * @param workers for a GPU-less job: node id → its pods there; empty for a job with GPUs
   *     (its workers follow from the assignments)
   */
  record Bound(long version, Instant at, String jobId, List<GpuAssignment> assignments,
      SortedMap<String, Integer> workers) implements LedgerChange {
    public Bound {
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(jobId, "jobId");
      assignments = List.copyOf(assignments);
      workers = workers == null || workers.isEmpty() ? Collections.emptySortedMap()
          : Collections.unmodifiableSortedMap(new TreeMap<>(workers));
    }

    /** A job bound to GPUs. */
    public Bound(long version, Instant at, String jobId, List<GpuAssignment> assignments) {
      this(version, at, jobId, assignments, null);
    }
  }

  /** A job holds nothing any more. */
  record Released(long version, Instant at, String jobId) implements LedgerChange {
    public Released {
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(jobId, "jobId");
    }
  }

  /** A hold is set (or replaced). */
  record HoldSet(long version, Instant at, Hold hold) implements LedgerChange {
    public HoldSet {
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(hold, "hold");
    }
  }

  /** A hold is gone. */
  record HoldDropped(long version, Instant at, String holdId) implements LedgerChange {
    public HoldDropped {
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(holdId, "holdId");
    }
  }

  /** A service reservation (F2/F3) holds these GPUs (set or changed). */
  record ReservationSet(long version, Instant at, Reservation reservation)
      implements LedgerChange {
    public ReservationSet {
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(reservation, "reservation");
    }
  }

  /** A service reservation is gone. */
  record ReservationDropped(long version, Instant at, String reservationId)
      implements LedgerChange {
    public ReservationDropped {
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(reservationId, "reservationId");
    }
  }
}
