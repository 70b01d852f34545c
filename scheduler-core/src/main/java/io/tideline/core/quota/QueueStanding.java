package io.tideline.core.quota;

import java.time.Instant;

/**
 * Where a waiting queue stands when borrowers are served (requirements Q3, Q4): below its guarantee
 * or not, and its decayed usage per unit of weight.
 *
 * @param queue queue path
 * @param belowGuarantee its guaranteed usage is under its floor (Q3: the pool favours it)
 * @param guaranteedGpus its floor
 * @param guaranteedUsed GPUs of its floor in use
 * @param decayedGpuHours decayed usage (Q4), in GPU-hours
 * @param weight its fair-share weight
 * @param oldestWaiting submission time of its oldest waiting job
 */
public record QueueStanding(
    String queue,
    boolean belowGuarantee,
    double guaranteedGpus,
    double guaranteedUsed,
    double decayedGpuHours,
    double weight,
    Instant oldestWaiting) {

  /** Decayed usage per unit of weight: the lower, the sooner the queue is served. */
  public double fairShareScore() {
    return decayedGpuHours / weight;
  }
}
