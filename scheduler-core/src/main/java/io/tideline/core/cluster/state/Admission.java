package io.tideline.core.cluster.state;

import io.tideline.core.quota.Verdict;
import java.time.Instant;
import java.util.Objects;

/**
 * Quota's verdict on a job as the schedulers use it (Q1–Q4, W4): whether and how it may run, how
 * many GPUs were admitted, whether it is preemptible and whether it may preempt — quota's word,
 * never the submitter's.
 *
 * @param verdict the admission outcome
 * @param gpus GPUs admitted (guaranteed + borrowed); placement never places more
 * @param preemptible W4 as granted: may the job be a victim
 * @param preemptionRight W4 as granted: may the job preempt
 * @param fairShareUsage Q4 decayed usage of its queue, in GPU-hours (queue order)
 * @param queue the quota queue path, or empty
 * @param decidedAt when quota decided
 */
public record Admission(Verdict verdict, double gpus, boolean preemptible,
    boolean preemptionRight, double fairShareUsage, String queue, Instant decidedAt) {

  public Admission {
    Objects.requireNonNull(verdict, "verdict");
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(decidedAt, "decidedAt");
  }

  /** Whether the job may run (GUARANTEED or SHARED). */
  public boolean admitted() {
    return verdict == Verdict.GUARANTEED || verdict == Verdict.SHARED;
  }
}
