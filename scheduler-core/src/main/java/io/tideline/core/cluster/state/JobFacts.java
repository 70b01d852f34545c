package io.tideline.core.cluster.state;

import java.time.Instant;

/**
 * What {@code jobs.lifecycle} has said about a job that prices or protects its eviction (P1, P3,
 * P4, P5): last (re)start, last preemption, last checkpoint, cache state and progress.
 *
 * @param startedAt last STARTED or RESUMED, or {@code null}
 * @param lastPreemptedAt last PREEMPTED (P3 cooldown), or {@code null}
 * @param lastCheckpointAt last checkpoint (P4 progress lost), or {@code null}
 * @param cacheWarm whether the data cache is warm (P4 warm-up), or {@code null} if unknown
 * @param progress fraction done in [0, 1] (P5 near completion), or {@code null}
 */
public record JobFacts(Instant startedAt, Instant lastPreemptedAt, Instant lastCheckpointAt,
    Boolean cacheWarm, Double progress) {

  /** Nothing known yet. */
  public static final JobFacts NONE = new JobFacts(null, null, null, null, null);

  /** The lifecycle events of W3/P3/P4 as the schedulers read them. */
  public enum Event { STARTED, CHECKPOINTED, PROGRESS, PREEMPTED, RESUMED, COMPLETED, FAILED }

  /** These facts after {@code event} at {@code at}, with what the record carried. */
  public JobFacts after(Event event, Instant at, Instant checkpointAt, Boolean warm,
      Double prog) {
    Instant started = startedAt;
    Instant preempted = lastPreemptedAt;
    Instant ckpt = lastCheckpointAt;
    Double p = progress;
    switch (event) {
      case STARTED, RESUMED -> {
        started = at;
        p = null;
      }
      case CHECKPOINTED -> ckpt = checkpointAt != null ? checkpointAt : at;
      case PREEMPTED -> preempted = at;
      default -> { }
    }
    if (event != Event.CHECKPOINTED && checkpointAt != null) {
      ckpt = checkpointAt;
    }
    if (prog != null) {
      p = prog;
    }
    return new JobFacts(started, preempted, ckpt, warm != null ? warm : cacheWarm, p);
  }
}
