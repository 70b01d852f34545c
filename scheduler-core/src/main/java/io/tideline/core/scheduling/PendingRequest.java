package io.tideline.core.scheduling;

import java.util.Objects;

/**
 * Placement's preemption request for one subject (a waiting job, or {@code reservation/<id>}) and
 * where it stands.
 *
 * @param requestId the request's id ({@code null} for a reservation whose start needed none)
 * @param version ledger version the request (or its answer) was made at
 * @param status OPEN until answered; REFUSED: ask again only once the ledger moved; DONE: handled
 * @param reservationId for a reservation start: the reservation; {@code null} otherwise
 */
public record PendingRequest(String requestId, long version, Status status,
    String reservationId) {

  /** Where a request stands. */
  public enum Status { OPEN, REFUSED, DONE }

  public PendingRequest {
    Objects.requireNonNull(status, "status");
  }

  /** Whether {@code requestId} is this open request. */
  public boolean answers(String id) {
    return status == Status.OPEN && requestId != null && requestId.equals(id);
  }
}
