package io.tideline.core.preemption;

import io.tideline.core.model.CheckpointProfile;
import io.tideline.core.model.WorkloadClass;
import java.time.Instant;
import java.util.Objects;

/**
 * A running job as the preemption decision sees it: the submission facts that say whether it may
 * be a victim (W1, W4) plus the lifecycle facts that price its eviction (P1, P3, P4). Adapters
 * build it from {@code jobs.submitted} and {@code jobs.lifecycle}.
 *
 * @param jobId unique job id (the tie-break of every ordering)
 * @param tenant organisation / business line that pays
 * @param user owner, who receives the notice (P7)
 * @param workloadClass W1 class
 * @param critical release/evaluation job (W1)
 * @param preemptible declared at submission (W4): may this job be a victim
 * @param gpusHeld GPUs held now, fractional for a shared-GPU instance (e.g. 0.25)
 * @param nodesSpanned nodes the job spans (P4 comm rebuild grows with it)
 * @param startedAt last (re)start: protection (P3) and run time (P1) count from here
 * @param lastPreemptedAt when it was last preempted, or {@code null} (P3 cooldown)
 * @param lastCheckpointAt when it last completed a checkpoint, or {@code null} if none since its
 *     (re)start (P4 progress lost)
 * @param cacheWarm whether its data cache is warm, i.e. an eviction throws warm-up away (P4)
 * @param dataCacheGb size of its data cache (P4 warm-up)
 * @param expectedRemainingSeconds estimated run time left, or {@link #UNKNOWN_REMAINING} (P5)
 * @param gpuHoursConsumed GPU-hours consumed over its whole life (P1)
 * @param checkpoint its checkpoint profile, or {@code null} if it does not checkpoint (P4)
 */
public record RunningJob(
    String jobId,
    String tenant,
    String user,
    WorkloadClass workloadClass,
    boolean critical,
    boolean preemptible,
    double gpusHeld,
    int nodesSpanned,
    Instant startedAt,
    Instant lastPreemptedAt,
    Instant lastCheckpointAt,
    boolean cacheWarm,
    double dataCacheGb,
    long expectedRemainingSeconds,
    double gpuHoursConsumed,
    CheckpointProfile checkpoint) {

  /** {@link #expectedRemainingSeconds} when nobody knows: the near-completion rule is skipped. */
  public static final long UNKNOWN_REMAINING = -1;

  public RunningJob {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(workloadClass, "workloadClass");
    Objects.requireNonNull(startedAt, "startedAt");
  }
}
