package io.tideline.core.cluster.state;

import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.GpuRef;
import io.tideline.core.cluster.Reservation;
import io.tideline.core.cluster.state.JobFacts.Event;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * GPUs set aside in the ledger while something has to happen first (a ledger reservation no one
 * else may use):
 * <ul>
 *   <li>{@link Kind#PREEMPT} — GPUs freed by evictions, held for the preemptor until every victim
 *       has stopped;</li>
 *   <li>{@link Kind#DEFRAG_JOB} — GPUs a passive defragmentation (T3) unlocks for the job that
 *       failed, held until the migrants have moved;</li>
 *   <li>{@link Kind#MIGRATION} — the GPUs a migrating job leaves, held until it runs at its
 *       target (a migration is make-before-break for inference, checkpoint-restart for training).</li>
 * </ul>
 *
 * @param id hold id ({@code hold:<job>} for the first two kinds, {@code migrate:<job>})
 * @param kind what the hold waits for
 * @param holder the job the GPUs are for, or empty for a migration hold
 * @param decisionId the decision that made the hold
 * @param waitingFor jobs that must stop or move before the hold resolves
 * @param assignments the held GPU shares
 */
public record Hold(String id, Kind kind, String holder, String decisionId,
    java.util.Set<String> waitingFor, List<GpuAssignment> assignments) {

  /** What a hold waits for. */
  public enum Kind { PREEMPT, DEFRAG_JOB, MIGRATION }

  /** The hold id of a job's own hold. */
  public static String holdOf(String jobId) {
    return "hold:" + jobId;
  }

  /** The hold id of a migration's source GPUs. */
  public static String migrationOf(String jobId) {
    return "migrate:" + jobId;
  }

  public Hold {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(holder, "holder");
    Objects.requireNonNull(decisionId, "decisionId");
    waitingFor = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(waitingFor));
    assignments = List.copyOf(assignments);
  }

  /**
   * Whether lifecycle event {@code event} of a job this hold waits for ends the wait: a victim
   * stops (PREEMPTED, COMPLETED, FAILED); a migrant runs at its target (RESUMED or STARTED) or
   * ends.
   */
  public boolean drainedBy(Event event) {
    return switch (event) {
      case PREEMPTED, COMPLETED, FAILED -> true;
      case RESUMED, STARTED -> kind != Kind.PREEMPT;
      default -> false;
    };
  }

  /** The ledger reservation that keeps everyone else off the held GPUs. */
  public Reservation reservation() {
    TreeSet<GpuRef> gpus = new TreeSet<>();
    assignments.forEach(a -> gpus.add(a.gpu()));
    return new Reservation(id, id, gpus, Instant.EPOCH, null);
  }

  /** The same hold without {@code jobId} in the wait list. */
  public Hold without(String jobId) {
    TreeSet<String> w = new TreeSet<>(waitingFor);
    w.remove(jobId);
    return new Hold(id, kind, holder, decisionId, w, assignments);
  }

  /** The same hold keeping only {@code kept} GPU shares. */
  public Hold keeping(List<GpuAssignment> kept) {
    return new Hold(id, kind, holder, decisionId, waitingFor, kept);
  }
}
