package io.tideline.core.preemption;

import java.time.Instant;

/**
 * The P3 time guards, as pure helpers other decisions can reuse: a job is never a victim in its
 * protection window after a (re)start (data load and first checkpoint), nor during the cooldown
 * after it was preempted. Quota uses {@link #inCooldown(Instant, Instant)} to admit a recently
 * preempted job only on guaranteed quota. Windows are half-open: at exactly start + 15 min the job
 * is no longer protected.
 */
public final class VictimGuard {

  private final PreemptionConfig config;

  public VictimGuard(PreemptionConfig config) {
    this.config = config;
  }

  /** End of the protection window after the job's last (re)start. */
  public Instant protectedUntil(RunningJob job) {
    return job.startedAt().plus(config.protectionWindow());
  }

  /** Whether {@code job} is inside its protection window at {@code now}. */
  public boolean isProtected(RunningJob job, Instant now) {
    return now.isBefore(protectedUntil(job));
  }

  /** End of the cooldown after a preemption at {@code lastPreemptedAt}, or {@code null}. */
  public Instant cooldownUntil(Instant lastPreemptedAt) {
    return lastPreemptedAt == null ? null : lastPreemptedAt.plus(config.cooldown());
  }

  /** Whether a job last preempted at {@code lastPreemptedAt} (nullable) is cooling down. */
  public boolean inCooldown(Instant lastPreemptedAt, Instant now) {
    Instant until = cooldownUntil(lastPreemptedAt);
    return until != null && now.isBefore(until);
  }

  /** Whether a running job is cooling down at {@code now}. */
  public boolean inCooldown(RunningJob job, Instant now) {
    return inCooldown(job.lastPreemptedAt(), now);
  }
}
