package io.tideline.core.scheduling;

import io.tideline.core.scheduling.PlacementInput.PreemptionAnswer.Trigger;
import java.util.Objects;

/**
 * A running job placement evicted on a preemption decision, until it stops: what for, so its
 * release keeps reserved GPUs for a starting service, forgets a reclaimed job, requeues a shrunk
 * one with fewer GPUs.
 *
 * @param decisionId the decision enacted
 * @param trigger why it was decided
 * @param reservationId RESERVATION_START: the reservation; empty otherwise
 * @param serviceId RESERVATION_START: its service; empty otherwise
 * @param shrinkToGpus SHRINK: GPUs it restarts with; 0 otherwise
 */
public record Evicting(String decisionId, Trigger trigger, String reservationId,
    String serviceId, int shrinkToGpus) {
  public Evicting {
    Objects.requireNonNull(decisionId, "decisionId");
    Objects.requireNonNull(trigger, "trigger");
    Objects.requireNonNull(reservationId, "reservationId");
    Objects.requireNonNull(serviceId, "serviceId");
  }
}
