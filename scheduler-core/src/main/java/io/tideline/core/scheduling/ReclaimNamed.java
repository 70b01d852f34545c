package io.tideline.core.scheduling;

import io.tideline.core.scheduling.PlacementInput.Reclaim.Action;
import java.time.Instant;
import java.util.Objects;

/**
 * A job quota named in an open reclaim (ADR 0029): the only jobs a reclaim-triggered answer of
 * preemption may evict. Keyed {@code <kind>/<jobId>} ({@link #key}); it leaves the table when the
 * eviction is applied, when the job stops, or {@link PlacementPolicy.ReclaimNaming#ttl} after
 * {@code namedAt}.
 *
 * @param jobId the job to evict
 * @param kind what quota asked of it
 * @param reclaimId quota's id of the request ({@code ""} when it gave none)
 * @param shrinkToGpus SHRINK: the GPUs it keeps; 0 otherwise
 * @param namedAt when quota named it (cluster time)
 */
public record ReclaimNamed(String jobId, Action kind, String reclaimId, int shrinkToGpus,
    Instant namedAt) {

  public ReclaimNamed {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(reclaimId, "reclaimId");
    Objects.requireNonNull(namedAt, "namedAt");
  }

  /** The table key of {@code jobId} named for {@code kind}. */
  public static String key(Action kind, String jobId) {
    return kind.name() + "/" + jobId;
  }

  /** This entry's table key. */
  public String key() {
    return key(kind, jobId);
  }
}
