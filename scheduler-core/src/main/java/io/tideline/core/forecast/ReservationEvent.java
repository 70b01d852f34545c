package io.tideline.core.forecast;

import java.time.Instant;
import java.util.Objects;

/**
 * A reservation decision for {@code capacity.reservations} (F2, F3, O2): reserve ahead of a rise,
 * release early after an over-forecast, or over-issue from the shared pool after an
 * under-forecast.
 *
 * @param type what is decided
 * @param serviceId the online service
 * @param gpus GPUs reserved, released or over-issued
 * @param expectedGpus RESERVE: how many of {@code gpus} the forecast median expects the rise to
 *     use (the start evicts for these only; the rest covers the upper quantile and is reclaimed
 *     when an instance waits); RELEASE and OVER_ISSUE: {@code gpus}
 * @param issuedAt the event time of the decision ({@code now})
 * @param from start of the period the GPUs concern. For RESERVE the slot start: between
 *     {@code issuedAt} and {@code from} placement lends these GPUs to preemptible training only
 *     (F2). For RELEASE and OVER_ISSUE it equals {@code issuedAt}
 * @param until end (exclusive) of that period
 * @param quantile forecast quantile the reservation policy covers
 * @param reason one human-readable sentence with the figures
 */
public record ReservationEvent(
    Type type,
    String serviceId,
    int gpus,
    int expectedGpus,
    Instant issuedAt,
    Instant from,
    Instant until,
    Quantile quantile,
    String reason) {

  public ReservationEvent {
    Objects.requireNonNull(type, "type");
    if (gpus <= 0) {
      throw new IllegalArgumentException("an event moves at least one GPU: " + gpus);
    }
    if (expectedGpus < 0 || expectedGpus > gpus) {
      throw new IllegalArgumentException("expected GPUs " + expectedGpus + " outside 0.." + gpus);
    }
  }

  /** The three reservation decisions of F2/F3. */
  public enum Type {
    /** Hold GPUs for the service from the next slot (F2). */
    RESERVE,
    /** Give reserved but unused GPUs back before the reservation ends (F3 over-forecast). */
    RELEASE,
    /** Lend shared-pool GPUs beyond the reservation, capped (F3 under-forecast). */
    OVER_ISSUE
  }
}
