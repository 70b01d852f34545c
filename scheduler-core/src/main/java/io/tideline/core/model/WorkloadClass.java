package io.tideline.core.model;

/**
 * The workload classes of requirement W1, ordered by tolerance to interruption.
 *
 * <p>Online inference is latency-sensitive and never interrupted; batch inference tolerates more;
 * training is long-running, checkpointed and preemptible; exploratory training is the lowest tier.
 * The {@link #lane()} says which queue (Q6) a class waits in.
 */
public enum WorkloadClass {
  ONLINE_INFERENCE(Lane.INFERENCE),
  BATCH_INFERENCE(Lane.BATCH),
  TRAINING(Lane.TRAINING),
  EXPLORATORY_TRAINING(Lane.TRAINING);

  private final Lane lane;

  WorkloadClass(Lane lane) {
    this.lane = lane;
  }

  /** The lane (Q6) this class queues in. */
  public Lane lane() {
    return lane;
  }

  /** The three isolated queues of requirement Q6, drawing on the same fleet. */
  public enum Lane {
    INFERENCE,
    TRAINING,
    BATCH
  }
}
