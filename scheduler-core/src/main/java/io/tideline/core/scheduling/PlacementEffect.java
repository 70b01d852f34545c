package io.tideline.core.scheduling;

import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.TopologyLevel;
import io.tideline.core.cluster.state.LedgerChange;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import io.tideline.core.trace.TraceEntry;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What one step of the placement kernel decided, for the adapter to publish. Every ledger change
 * is one {@link Changed} (the applied fact followers fold); every user-visible outcome one
 * {@link Decided} with its rule trace.
 */
public sealed interface PlacementEffect permits PlacementEffect.Decided, PlacementEffect.Changed,
    PlacementEffect.Evict, PlacementEffect.RequestPreemption, PlacementEffect.Position,
    PlacementEffect.PositionCleared, PlacementEffect.Fragmentation, PlacementEffect.Refused,
    PlacementEffect.Counted {

  /** The outcomes of a placement decision ({@code placement.decisions}). */
  enum Outcome { PLACED, QUEUED, PREEMPTION_REQUESTED, HELD_FOR_PREEMPTOR, RELEASED, MIGRATED }

  /** Why a job is stopped or moved ({@code evictions}). */
  enum EvictionKind { PREEMPT, MIGRATE, RECLAIM, SHRINK }

  /** Why placement asks preemption ({@code preemption.requests}). */
  enum RequestTrigger { UNPLACEABLE, RESERVATION_START }

  /**
   * A decision about one job (or reservation subject), with its rule trace.
   *
   * @param decisionId unique id ({@code cluster/v<version>/<job>/<outcome>})
   * @param jobId the job
   * @param outcome what was decided
   * @param assignments the GPU shares concerned (placed, held, released, moved to)
   * @param level smallest topology domain of the assignments, or {@code null}
   * @param crossDomain whether they span access-switch domains
   * @param score placement score (0 when not placed)
   * @param ledgerVersion ledger version after the decision
   * @param at event time (the tick)
   * @param trace the rules applied
   * @param workers for a PLACED GPU-less job (ADR 0030): node id → its pods there; else empty
   */
  record Decided(String decisionId, String jobId, Outcome outcome,
      List<GpuAssignment> assignments, TopologyLevel level, boolean crossDomain, double score,
      long ledgerVersion, Instant at, List<TraceEntry> trace, SortedMap<String, Integer> workers)
      implements PlacementEffect {
    public Decided {
      Objects.requireNonNull(decisionId, "decisionId");
      Objects.requireNonNull(jobId, "jobId");
      Objects.requireNonNull(outcome, "outcome");
      Objects.requireNonNull(at, "at");
      assignments = List.copyOf(assignments);
      trace = List.copyOf(trace);
      workers = workers == null || workers.isEmpty() ? Collections.emptySortedMap()
          : Collections.unmodifiableSortedMap(new TreeMap<>(workers));
    }

    /** A decision on GPUs (or none). */
    public Decided(String decisionId, String jobId, Outcome outcome,
        List<GpuAssignment> assignments, TopologyLevel level, boolean crossDomain, double score,
        long ledgerVersion, Instant at, List<TraceEntry> trace) {
      this(decisionId, jobId, outcome, assignments, level, crossDomain, score, ledgerVersion, at,
          trace, null);
    }
  }

  /** The ledger changed ({@code placement.ledger}): the fact followers fold. */
  record Changed(LedgerChange change) implements PlacementEffect {
    public Changed {
      Objects.requireNonNull(change, "change");
    }
  }

  /**
   * Stop (checkpoint first) or move a running job ({@code evictions}): the applied eviction.
   *
   * @param evictionId unique id ({@code <decision>/<job>})
   * @param jobId the job
   * @param kind why
   * @param decisionId the decision it enacts (preemption's, or placement's defrag decision)
   * @param checkpointFirst whether the job must checkpoint before it stops
   * @param graceSeconds how long it gets to do so (P4)
   * @param target where a migrating job goes; empty otherwise
   * @param shrinkToGpus for SHRINK: the GPUs it restarts with; 0 otherwise
   * @param stretchedSeconds for SHRINK: its expected run time afterwards; 0 when unknown
   * @param reason readable reason, for the owner
   * @param at event time
   */
  record Evict(String evictionId, String jobId, EvictionKind kind, String decisionId,
      boolean checkpointFirst, long graceSeconds, List<GpuAssignment> target, int shrinkToGpus,
      long stretchedSeconds, String reason, Instant at) implements PlacementEffect {
    public Evict {
      Objects.requireNonNull(evictionId, "evictionId");
      Objects.requireNonNull(jobId, "jobId");
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(decisionId, "decisionId");
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(at, "at");
      target = List.copyOf(target);
    }
  }

  /**
   * Ask preemption for room ({@code preemption.requests}).
   *
   * @param requestId unique id
   * @param subject the waiting job, or {@code reservation/<id>} at a reservation start
   * @param preemptorClass workload class of the preemptor
   * @param shape what must fit (a reservation's shortfall for RESERVATION_START)
   * @param trigger why
   * @param ledgerVersion the ledger version the request was made on
   * @param at event time
   * @param reservationId the starting reservation, or {@code null}
   * @param serviceId its service, or {@code null}
   * @param holders RESERVATION_START: jobs on the reserved GPUs → reserved share each holds
   * @param expectedWaitSeconds placement's estimate of the preemptor's wait without preemption
   *     (P5: the wait a preemption avoids), or -1 when unknown
   */
  record RequestPreemption(String requestId, String subject, WorkloadClass preemptorClass,
      JobRequest shape, RequestTrigger trigger, long ledgerVersion, Instant at,
      String reservationId, String serviceId, Map<String, Double> holders,
      long expectedWaitSeconds) implements PlacementEffect {
    public RequestPreemption {
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(subject, "subject");
      Objects.requireNonNull(preemptorClass, "preemptorClass");
      Objects.requireNonNull(shape, "shape");
      Objects.requireNonNull(trigger, "trigger");
      Objects.requireNonNull(at, "at");
      holders = Map.copyOf(holders);
    }
  }

  /**
   * A queued job's standing ({@code placement.queue}, compacted).
   *
   * @param jobId the job
   * @param lane its lane
   * @param position 1-based position in its lane
   * @param estimatedStart estimated start, or {@code null} when unknown
   * @param basis how the estimate was made
   * @param boost compensation boost levels (P6)
   * @param at event time
   */
  record Position(String jobId, WorkloadClass.Lane lane, int position, Instant estimatedStart,
      String basis, int boost, Instant at) implements PlacementEffect {
    public Position {
      Objects.requireNonNull(jobId, "jobId");
      Objects.requireNonNull(lane, "lane");
      Objects.requireNonNull(basis, "basis");
      Objects.requireNonNull(at, "at");
    }
  }

  /** The job no longer waits: its position is withdrawn (a tombstone on the compacted topic). */
  record PositionCleared(String jobId) implements PlacementEffect {
    public PositionCleared {
      Objects.requireNonNull(jobId, "jobId");
    }
  }

  /**
   * T2 as an event ({@code placement.fragmentation}).
   *
   * @param at event time
   * @param ledgerVersion ledger version measured
   * @param index the cluster figure
   * @param strandedGpus idle GPUs useless to the demand
   * @param idleGpus idle GPUs
   * @param shapes demanded shapes: GPUs per piece → jobs
   * @param nodes per node with idle GPUs: id, idle, stranded, index, used share
   * @param trigger why it was published
   */
  record Fragmentation(Instant at, long ledgerVersion, double index, double strandedGpus,
      int idleGpus, Map<Integer, Long> shapes, List<NodeFigure> nodes, String trigger)
      implements PlacementEffect {
    public Fragmentation {
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(trigger, "trigger");
      shapes = Map.copyOf(shapes);
      nodes = List.copyOf(nodes);
    }
  }

  /** One node's figure in a {@link Fragmentation} report. */
  record NodeFigure(String nodeId, int idleGpus, double strandedGpus, double index,
      double usedShare) {}

  /**
   * An input could not be used (dead-letter it with the reason; it changed nothing).
   *
   * @param reason why
   * @param inboxSeq the refused input's arrival sequence when it was applied from the inbox at a
   *     tick; -1 for the input of the step itself
   */
  record Refused(String reason, long inboxSeq) implements PlacementEffect {
    public Refused {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Something worth counting happened (adapter meters): {@code counter} with {@code tag}. */
  record Counted(String counter, String tag) implements PlacementEffect {
    public Counted {
      Objects.requireNonNull(counter, "counter");
      Objects.requireNonNull(tag, "tag");
    }
  }
}
