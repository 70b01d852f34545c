package io.tideline.core.forecast;

import java.time.Instant;

/**
 * A reservation a service currently has (from an earlier RESERVE), with how much of it is in use:
 * the F3 early release compares the two as the reservation winds down.
 *
 * @param gpus GPUs reserved
 * @param from start of the reserved slot
 * @param until end (exclusive) of the reserved slot
 * @param gpusInUse of {@code gpus}, how many the service is using now
 */
public record ActiveReservation(int gpus, Instant from, Instant until, int gpusInUse) {

  public ActiveReservation {
    if (gpus < 0 || gpusInUse < 0) {
      throw new IllegalArgumentException("GPU counts must not be negative");
    }
    if (!until.isAfter(from)) {
      throw new IllegalArgumentException("reservation must end after it starts");
    }
  }

  /** Reserved GPUs the service is not using. */
  public int unusedGpus() {
    return Math.max(0, gpus - gpusInUse);
  }
}
