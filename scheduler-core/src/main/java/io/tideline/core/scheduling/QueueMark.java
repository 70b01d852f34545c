package io.tideline.core.scheduling;

import java.time.Instant;

/**
 * What placement remembers of a known job beyond the cluster's facts: compensation owed (P6),
 * whether it is parked (its shape or model fits no node of the fleet: offered again when the fleet
 * changes), whether its current wait was announced (one QUEUED decision per wait), the standing
 * last published on {@code placement.queue}, when passive defragmentation was last tried for it,
 * and a shrink (Q7) it restarts with.
 *
 * @param boost compensation boost levels (P6), one per preemption suffered
 * @param parked refused for its shape or model: waits for a fleet change
 * @param announced a QUEUED decision was published for the current wait
 * @param position last published position (0: none published)
 * @param estimatedStart last published estimated start, or {@code null}
 * @param defragTriedAt ledger version at which passive defragmentation was last tried (-1: never)
 * @param shrinkToGpus Q7: GPUs the job restarts with after a shrink (0: as submitted)
 * @param stretchedSeconds Q7: its expected run time after the shrink (0: as submitted)
 * @param retired Q7: reclaimed for idleness — never queued again (its owner submits anew)
 */
public record QueueMark(int boost, boolean parked, boolean announced, int position,
    Instant estimatedStart, long defragTriedAt, int shrinkToGpus, long stretchedSeconds,
    boolean retired) {

  /** A job placement knows nothing more of. */
  public static final QueueMark NONE = new QueueMark(0, false, false, 0, null, -1, 0, 0, false);

  public QueueMark withBoost(int b) {
    return new QueueMark(b, parked, announced, position, estimatedStart, defragTriedAt,
        shrinkToGpus, stretchedSeconds, retired);
  }

  public QueueMark withParked(boolean p) {
    return new QueueMark(boost, p, announced, position, estimatedStart, defragTriedAt,
        shrinkToGpus, stretchedSeconds, retired);
  }

  public QueueMark withAnnounced(boolean a) {
    return new QueueMark(boost, parked, a, position, estimatedStart, defragTriedAt, shrinkToGpus,
        stretchedSeconds, retired);
  }

  public QueueMark withPublished(int pos, Instant start) {
    return new QueueMark(boost, parked, announced, pos, start, defragTriedAt, shrinkToGpus,
        stretchedSeconds, retired);
  }

  public QueueMark withDefragTriedAt(long v) {
    return new QueueMark(boost, parked, announced, position, estimatedStart, v, shrinkToGpus,
        stretchedSeconds, retired);
  }

  public QueueMark withShrink(int gpus, long seconds) {
    return new QueueMark(boost, parked, announced, position, estimatedStart, defragTriedAt, gpus,
        seconds, retired);
  }

  public QueueMark withRetired(boolean r) {
    return new QueueMark(boost, parked, announced, position, estimatedStart, defragTriedAt,
        shrinkToGpus, stretchedSeconds, r);
  }

  /** Whether nothing is worth keeping (the entity can be deleted). */
  public boolean isNone() {
    return equals(NONE);
  }
}
