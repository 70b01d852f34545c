package io.tideline.core.forecast;

import java.util.Objects;

/**
 * What an online service holds and needs at {@code now}: the snapshot the reservation planner
 * decides on (F2, F3).
 *
 * @param serviceId the online service
 * @param heldGpus GPUs the service holds on its own account at the next slot start: guarantee,
 *     allocated instances and reservations still valid then; excludes temporary over-issue
 * @param demandGpus GPUs its current actual demand needs (from telemetry, scaled)
 * @param overIssuedGpus GPUs currently drawn from the shared pool by over-issue (F3)
 * @param sharedPoolIdleGpus idle GPUs in the shared pool right now (Q1), the most it can lend
 * @param reservation the reservation in force now, or {@code null}
 */
public record ServicePosition(
    String serviceId,
    int heldGpus,
    int demandGpus,
    int overIssuedGpus,
    int sharedPoolIdleGpus,
    ActiveReservation reservation) {

  public ServicePosition {
    Objects.requireNonNull(serviceId, "serviceId");
    if (heldGpus < 0 || demandGpus < 0 || overIssuedGpus < 0 || sharedPoolIdleGpus < 0) {
      throw new IllegalArgumentException("GPU counts must not be negative");
    }
  }
}
