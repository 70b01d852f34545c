package io.tideline.core.preemption;

import io.tideline.core.model.WorkloadClass;
import java.util.Objects;

/**
 * A pending job asking for room it cannot get without evicting others (a
 * {@code preemption.requests} event from placement): its identity and rights (W4), its score
 * inputs (P1), its shape (for the feasibility probe) and what waiting would cost it (P5).
 *
 * @param jobId the preemptor's job id
 * @param tenant organisation / business line (W4 "configured business levels")
 * @param user owner
 * @param workloadClass W1 class
 * @param critical release/evaluation job (W1)
 * @param preemptionRightGranted whether quota granted the right to preempt it requested (W4)
 * @param gpus whole GPUs the gang needs
 * @param nodes nodes the gang must span, or 0 to let placement choose
 * @param expectedWaitSeconds how long it would wait without preempting (placement's estimate):
 *     the wait a preemption avoids (P5 gain)
 * @param reservationValueGpuHours value of meeting a reservation on time (F2), in GPU-hours, added
 *     to the gain; 0 if none
 * @param gpuHoursConsumed GPU-hours it consumed before (a resumed job), for its P1 score
 */
public record PreemptionRequest(
    String jobId,
    String tenant,
    String user,
    WorkloadClass workloadClass,
    boolean critical,
    boolean preemptionRightGranted,
    int gpus,
    int nodes,
    long expectedWaitSeconds,
    double reservationValueGpuHours,
    double gpuHoursConsumed) {

  public PreemptionRequest {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(workloadClass, "workloadClass");
  }
}
