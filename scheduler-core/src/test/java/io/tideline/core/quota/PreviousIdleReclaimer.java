package io.tideline.core.quota;

import io.tideline.core.trace.TraceEntry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The idle reclaimer as it was before {@link IdleReclaimer#action} and its loop-based window,
 * coverage and peak (kept verbatim, streams included): the reference {@link
 * IdleReclaimerEquivalenceTest} compares the current one with.
 */
final class PreviousIdleReclaimer {

  private final IdleConfig config;

  PreviousIdleReclaimer(IdleConfig config) {
    this.config = config;
  }

  /**
   * The recommendation for one job.
   *
   * @param jobId the job
   * @param gpus GPUs it holds
   * @param remaining its expected remaining run time at the current size, or {@code null}
   * @param samples its utilisation samples (any order; those outside the window are ignored)
   * @param now the end of the window
   */
  public IdleRecommendation assess(String jobId, int gpus, Duration remaining,
      List<UtilisationSample> samples, Instant now) {
    List<TraceEntry> trace = new ArrayList<>();
    Instant from = now.minus(config.window());
    // 1. Keep the samples inside [now − window, now], in time order.
    List<UtilisationSample> in = samples.stream()
        .filter(s -> !s.at().isBefore(from) && !s.at().isAfter(now))
        .sorted(Comparator.comparing(UtilisationSample::at)).toList();
    // 2. The window must be observed end to end, without gaps longer than maxSampleGap.
    String gap = coverageGap(in, from, now);
    if (gap != null) {
      trace.add(new TraceEntry(jobId, "Q7 observed window", "insufficient", gap));
      return new IdleRecommendation(jobId, IdleRecommendation.Action.KEEP, gpus, gpus, peak(in),
          remaining, remaining, "window " + config.window() + " not fully observed", trace);
    }
    double peak = peak(in);
    trace.add(new TraceEntry(jobId, "Q7 observed window", "observed",
        in.size() + " samples from " + from + " to " + now + ", peak utilisation " + pct(peak)));
    // 3. ≈ 0 % all window long: reclaim.
    if (peak < config.reclaimBelowUtilisation()) {
      trace.add(new TraceEntry(jobId, "Q7 idle reclamation", "reclaim", "peak " + pct(peak) + " < "
          + pct(config.reclaimBelowUtilisation()) + " for " + config.window()));
      return new IdleRecommendation(jobId, IdleRecommendation.Action.RECLAIM, gpus, 0, peak,
          remaining, null, "idle: " + gpus + " GPUs reclaimable", trace);
    }
    // 4. Under the shrink threshold all window long: size to the peak's need.
    if (peak >= config.shrinkBelowUtilisation()) {
      trace.add(new TraceEntry(jobId, "Q7 shrink", "keep", "peak " + pct(peak) + " >= "
          + pct(config.shrinkBelowUtilisation())));
      return new IdleRecommendation(jobId, IdleRecommendation.Action.KEEP, gpus, gpus, peak,
          remaining, remaining, "utilisation justifies " + gpus + " GPUs", trace);
    }
    int target = Math.max(config.minGpus(), (int) Math.ceil(gpus * peak - Gpus.EPS));
    if (target >= gpus) {
      trace.add(new TraceEntry(jobId, "Q7 shrink", "keep", "already at the minimum of "
          + config.minGpus() + " GPU(s)"));
      return new IdleRecommendation(jobId, IdleRecommendation.Action.KEEP, gpus, gpus, peak,
          remaining, remaining, "cannot shrink below " + config.minGpus() + " GPU(s)", trace);
    }
    Duration after = remaining == null ? null : stretch(remaining, gpus, target);
    trace.add(new TraceEntry(jobId, "Q7 shrink", "shrink " + gpus + " → " + target,
        "peak " + pct(peak) + " < " + pct(config.shrinkBelowUtilisation()) + " for "
            + config.window() + "; ceil(" + gpus + " × " + pct(peak) + ") = " + target
            + (after == null ? "" : "; ETA " + remaining + " × " + Gpus.fmt(config
                .speedupPerDoubling()) + "^log2(" + gpus + "/" + target + ") = " + after)));
    return new IdleRecommendation(jobId, IdleRecommendation.Action.SHRINK, gpus, target, peak,
        remaining, after, "under " + pct(config.shrinkBelowUtilisation()) + " utilisation: shrink "
            + gpus + " → " + target + " GPUs", trace);
  }

  /** Remaining time at {@code to} GPUs: remaining × s^log2(from / to), to the second. */
  public Duration stretch(Duration remaining, int from, int to) {
    double factor = Math.pow(config.speedupPerDoubling(), Math.log((double) from / to) / Math.log(2));
    return Duration.ofSeconds(Math.round(remaining.toSeconds() * factor));
  }

  private String coverageGap(List<UtilisationSample> in, Instant from, Instant now) {
    if (in.isEmpty()) {
      return "no samples in " + config.window();
    }
    Instant prev = from;
    for (UtilisationSample s : in) {
      if (Duration.between(prev, s.at()).compareTo(config.maxSampleGap()) > 0) {
        return "gap " + prev + " → " + s.at() + " exceeds " + config.maxSampleGap();
      }
      prev = s.at();
    }
    if (Duration.between(prev, now).compareTo(config.maxSampleGap()) > 0) {
      return "last sample " + prev + " older than " + config.maxSampleGap();
    }
    return null;
  }

  private static double peak(List<UtilisationSample> in) {
    return in.stream().mapToDouble(UtilisationSample::utilisation).max().orElse(Double.NaN);
  }

  private static String pct(double f) {
    return Gpus.fmt(f * 100) + "%";
  }
}
