package io.tideline.core.placement;

import java.util.Comparator;

/**
 * The order in which a lane's queue (Q6) offers jobs to placement. Keys, in order:
 * <ol>
 *   <li>workload class, in {@link io.tideline.core.model.WorkloadClass} declaration order (online
 *       inference, batch inference, training, exploratory training — W1 tolerance);
 *   <li>quota verdict rank, lower first (Q1, Q3);
 *   <li>fair-share usage, lower first (Q4);
 *   <li>compensation boost, higher first (P6);
 *   <li>submission time, earlier first;
 *   <li>job id, lexicographic — the tie-break that makes the order total: two entries compare
 *       equal only if every key is equal, i.e. for the same job with the same standing.
 * </ol>
 * Consistent with equals on those keys, so it is safe for sorted sets and maps.
 */
public final class QueueOrder implements Comparator<QueuedJob> {

  /** The one order. */
  public static final QueueOrder INSTANCE = new QueueOrder();

  private static final Comparator<QueuedJob> ORDER =
      Comparator.<QueuedJob, Integer>comparing(q -> q.job().workloadClass().ordinal())
          .thenComparingInt(q -> q.quota().rank())
          .thenComparingDouble(q -> q.fairShare().usage())
          .thenComparing(q -> q.boost().levels(), Comparator.reverseOrder())
          .thenComparing(q -> q.job().submittedAt())
          .thenComparing(q -> q.job().jobId());

  private QueueOrder() {}

  @Override
  public int compare(QueuedJob a, QueuedJob b) {
    return ORDER.compare(a, b);
  }
}
