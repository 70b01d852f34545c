package io.tideline.core.quota;

import io.tideline.core.trace.TraceEntry;
import java.time.Duration;
import java.util.List;

/**
 * What to do with a job's GPUs after looking at its utilisation (requirement Q7).
 *
 * @param jobId the job
 * @param action keep, shrink or reclaim
 * @param currentGpus GPUs it holds
 * @param recommendedGpus GPUs it should hold (0 when reclaimed)
 * @param peakUtilisation highest utilisation in the window (NaN without samples)
 * @param etaBefore remaining run time at the current size, or {@code null} when unknown
 * @param etaAfter remaining run time at the recommended size, or {@code null} when unknown or
 *     reclaimed
 * @param reason one line: why
 * @param trace the rules consulted
 */
public record IdleRecommendation(
    String jobId,
    Action action,
    int currentGpus,
    int recommendedGpus,
    double peakUtilisation,
    Duration etaBefore,
    Duration etaAfter,
    String reason,
    List<TraceEntry> trace) {

  public IdleRecommendation {
    trace = List.copyOf(trace);
  }

  /** The three outcomes. */
  public enum Action {
    /** Utilisation justifies the GPUs (or the window was not fully observed). */
    KEEP,
    /** Under the shrink threshold all window long: run on fewer GPUs. */
    SHRINK,
    /** ≈ 0 % all window long: take the GPUs back. */
    RECLAIM
  }
}
