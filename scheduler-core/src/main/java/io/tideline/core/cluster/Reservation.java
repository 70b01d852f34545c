package io.tideline.core.cluster;

import io.tideline.core.model.JobRequest;
import java.time.Instant;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * GPUs held for an online service ahead of its forecast rise (F2) and released early when the
 * forecast overshot (F3).
 *
 * <p>The rule ({@link #permits}): the service's own instances may always use the GPUs. Before
 * {@code startsAt} other work may use them only if it is preemptible, so it can be evicted when
 * the service arrives; from {@code startsAt} on they are the service's alone. Once
 * {@code releasedAt} has passed the reservation no longer holds anything.
 *
 * @param id reservation id
 * @param serviceId the online service the GPUs are held for
 * @param gpus the reserved GPUs
 * @param startsAt when the service may claim them (F2: 15 minutes before the forecast rise)
 * @param releasedAt early release instant (F3), or {@code null} while the reservation holds
 * @param expectedGpus how many of the GPUs the rise is expected to use (the forecast median's
 *     part of the reservation, F2): at its start placement evicts holders for these only; the rest
 *     stays reserved for the upper tail and is reclaimed when an instance of the service waits
 *     for it. Between 0 and {@code gpus.size()}; the whole reservation when the forecaster did
 *     not say (records written before the field existed)
 */
public record Reservation(
    String id, String serviceId, SortedSet<GpuRef> gpus, Instant startsAt, Instant releasedAt,
    int expectedGpus) {

  public Reservation {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(serviceId, "serviceId");
    Objects.requireNonNull(startsAt, "startsAt");
    gpus = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(gpus));
    expectedGpus = Math.max(0, Math.min(expectedGpus, gpus.size()));
  }

  /** A reservation whose every GPU is expected to be used (evicted for at its start). */
  public Reservation(
      String id, String serviceId, SortedSet<GpuRef> gpus, Instant startsAt, Instant releasedAt) {
    this(id, serviceId, gpus, startsAt, releasedAt, gpus.size());
  }

  /**
   * Suffix of the id of an F3 over-issue: placement keeps it beside the reservation it extends
   * ({@code <reservation id>#over-issue}); it never evicts anyone.
   */
  public static final String OVER_ISSUE_SUFFIX = "#over-issue";

  /** Whether this is an F3 over-issue from the shared pool rather than an F2 reservation. */
  public boolean isOverIssue() {
    return id.endsWith(OVER_ISSUE_SUFFIX);
  }

  /** Whether the reservation still holds its GPUs at {@code now} (not yet released). */
  public boolean activeAt(Instant now) {
    return releasedAt == null || now.isBefore(releasedAt);
  }

  /** Whether {@code job} may use this reservation's GPUs at {@code now}; see the class rule. */
  public boolean permits(JobRequest job, Instant now) {
    if (!activeAt(now)) {
      return true;
    }
    if (serviceId.equals(job.serviceId())) {
      return true;
    }
    return now.isBefore(startsAt) && job.preemptible();
  }

  /** The same reservation holding only {@code kept} (F3 partial early release). */
  public Reservation withGpus(SortedSet<GpuRef> kept) {
    return new Reservation(id, serviceId, kept, startsAt, releasedAt, expectedGpus);
  }

  /** The same reservation released early at {@code at} (F3). */
  public Reservation releasedAt(Instant at) {
    return new Reservation(id, serviceId, gpus, startsAt, at, expectedGpus);
  }
}
