package io.tideline.core.fragmentation;

import io.tideline.core.cluster.GpuAssignment;
import java.util.List;
import java.util.Objects;

/**
 * A planned move of one running job (T3): where it is, where it would go, and why. Planners only
 * propose migrations; the ledger writer re-checks and executes them.
 *
 * @param jobId the job to move
 * @param from its current GPU shares
 * @param to its GPU shares after the move
 * @param reason why it moves, for the trace and the owner's notice
 */
public record Migration(String jobId, List<GpuAssignment> from, List<GpuAssignment> to,
    String reason) {

  public Migration {
    Objects.requireNonNull(jobId, "jobId");
    from = List.copyOf(from);
    to = List.copyOf(to);
  }

  /** GPU share moved (what the T4 rate limit counts). */
  public double gpuShare() {
    double s = 0;
    for (GpuAssignment a : from) {
      s += a.share();
    }
    return s;
  }
}
