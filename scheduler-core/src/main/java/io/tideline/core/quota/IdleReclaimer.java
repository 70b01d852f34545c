package io.tideline.core.quota;

import io.tideline.core.quota.IdleRecommendation.Action;
import io.tideline.core.trace.TraceEntry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.RandomAccess;

/**
 * Finds GPUs held but not used (requirement Q7). Over the configured window ending at {@code now}:
 * utilisation always under the reclaim threshold → RECLAIM; always under the shrink threshold →
 * SHRINK to the GPUs its peak utilisation needs; otherwise (or if the window is not fully observed)
 * KEEP.
 *
 * <p>ETA model. Run time is work / (gpus × efficiency(gpus)) with a per-doubling speed-up {@code s}
 * (efficiency(g) ∝ g^(log2 s − 1)), so shrinking from g to g' stretches the remaining time by
 * s^log2(g / g'). With the default s = 1.5 the requirement's example holds exactly: 4 → 2 GPUs is
 * one halving, 10 h × 1.5 = 15 h; 8 → 2 would be 10 h × 1.5² = 22.5 h.
 */
public final class IdleReclaimer {

  private final IdleConfig config;

  public IdleReclaimer(IdleConfig config) {
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
    Instant from = now.minus(config.window());
    List<UtilisationSample> in = window(samples, from, now);
    Outcome o = rule(gpus, in, from, now);
    List<TraceEntry> trace = new ArrayList<>();
    if (o.why() == Why.UNOBSERVED) {
      trace.add(new TraceEntry(jobId, "Q7 observed window", "insufficient",
          coverageGap(in, o.gap(), from)));
      return new IdleRecommendation(jobId, Action.KEEP, gpus, gpus, o.peak(),
          remaining, remaining, "window " + config.window() + " not fully observed", trace);
    }
    double peak = o.peak();
    trace.add(new TraceEntry(jobId, "Q7 observed window", "observed",
        in.size() + " samples from " + from + " to " + now + ", peak utilisation " + pct(peak)));
    return switch (o.why()) {
      case IDLE -> {
        trace.add(new TraceEntry(jobId, "Q7 idle reclamation", "reclaim", "peak " + pct(peak)
            + " < " + pct(config.reclaimBelowUtilisation()) + " for " + config.window()));
        yield new IdleRecommendation(jobId, Action.RECLAIM, gpus, 0, peak,
            remaining, null, "idle: " + gpus + " GPUs reclaimable", trace);
      }
      case BUSY -> {
        trace.add(new TraceEntry(jobId, "Q7 shrink", "keep", "peak " + pct(peak) + " >= "
            + pct(config.shrinkBelowUtilisation())));
        yield new IdleRecommendation(jobId, Action.KEEP, gpus, gpus, peak,
            remaining, remaining, "utilisation justifies " + gpus + " GPUs", trace);
      }
      case AT_MINIMUM -> {
        trace.add(new TraceEntry(jobId, "Q7 shrink", "keep", "already at the minimum of "
            + config.minGpus() + " GPU(s)"));
        yield new IdleRecommendation(jobId, Action.KEEP, gpus, gpus, peak,
            remaining, remaining, "cannot shrink below " + config.minGpus() + " GPU(s)", trace);
      }
      case OVERSIZED -> {
        int target = o.target();
        Duration after = remaining == null ? null : stretch(remaining, gpus, target);
        trace.add(new TraceEntry(jobId, "Q7 shrink", "shrink " + gpus + " → " + target,
            "peak " + pct(peak) + " < " + pct(config.shrinkBelowUtilisation()) + " for "
                + config.window() + "; ceil(" + gpus + " × " + pct(peak) + ") = " + target
                + (after == null ? "" : "; ETA " + remaining + " × " + Gpus.fmt(config
                    .speedupPerDoubling()) + "^log2(" + gpus + "/" + target + ") = " + after)));
        yield new IdleRecommendation(jobId, Action.SHRINK, gpus, target, peak,
            remaining, after, "under " + pct(config.shrinkBelowUtilisation())
                + " utilisation: shrink " + gpus + " → " + target + " GPUs", trace);
      }
      case UNOBSERVED -> throw new IllegalStateException("handled above");
    };
  }

  /** Remaining time at {@code to} GPUs: remaining × s^log2(from / to), to the second. */
  public Duration stretch(Duration remaining, int from, int to) {
    double factor = Math.pow(config.speedupPerDoubling(), Math.log((double) from / to) / Math.log(2));
    return Duration.ofSeconds(Math.round(remaining.toSeconds() * factor));
  }

  /**
   * The action {@link #assess} recommends for these arguments ({@code assess(…).action()}),
   * without its trace, reason and ETAs: the same window, coverage and peak rules, for a caller
   * that only acts on SHRINK and RECLAIM (the quota kernel assesses every running job on every
   * tick, and most are kept).
   *
   * @param gpus GPUs the job holds
   * @param samples its utilisation samples (any order; those outside the window are ignored)
   * @param now the end of the window
   */
  public Action action(int gpus, List<UtilisationSample> samples, Instant now) {
    Instant from = now.minus(config.window());
    return rule(gpus, window(samples, from, now), from, now).why().action;
  }

  /** Why the rule decided what it did; each reason names its action. */
  private enum Why {
    /** 1–2: the window is not observed end to end (a gap longer than maxSampleGap). */
    UNOBSERVED(Action.KEEP),
    /** 3: the peak stayed under the reclaim threshold all window long. */
    IDLE(Action.RECLAIM),
    /** 4: the peak reached the shrink threshold. */
    BUSY(Action.KEEP),
    /** 4: under the shrink threshold, but the peak's need is already the minimum. */
    AT_MINIMUM(Action.KEEP),
    /** 4: under the shrink threshold: size to the peak's need. */
    OVERSIZED(Action.SHRINK);

    final Action action;

    Why(Action action) {
      this.action = action;
    }
  }

  /**
   * What the rule found: why, the first coverage gap ({@link #firstGap}), the peak utilisation
   * and the GPUs the peak needs (only for {@link Why#OVERSIZED} and {@link Why#AT_MINIMUM}).
   */
  private record Outcome(Why why, int gap, double peak, int target) {}

  /**
   * Q7, the one place it is decided (class Javadoc): the window observed end to end, then the
   * peak against the reclaim threshold, then against the shrink threshold, then the peak's need
   * {@code max(minGpus, ceil(gpus × peak))} against the GPUs held.
   */
  private Outcome rule(int gpus, List<UtilisationSample> in, Instant from, Instant now) {
    int gap = firstGap(in, from, now);
    double peak = peak(in);
    if (gap >= 0) {
      return new Outcome(Why.UNOBSERVED, gap, peak, gpus);
    }
    if (peak < config.reclaimBelowUtilisation()) {
      return new Outcome(Why.IDLE, gap, peak, 0);
    }
    if (peak >= config.shrinkBelowUtilisation()) {
      return new Outcome(Why.BUSY, gap, peak, gpus);
    }
    int target = Math.max(config.minGpus(), (int) Math.ceil(gpus * peak - Gpus.EPS));
    return new Outcome(target >= gpus ? Why.AT_MINIMUM : Why.OVERSIZED, gap, peak, target);
  }

  /**
   * The samples inside {@code [from, now]} in time order (a stable sort by instant). Samples
   * already in time order (the quota kernel's per-instant list) are a contiguous run of them:
   * that run, as a view, no copy and no sort.
   */
  private static List<UtilisationSample> window(List<UtilisationSample> samples, Instant from,
      Instant now) {
    int lo = 0;
    int hi = samples.size();
    boolean ordered = samples instanceof RandomAccess;
    for (int i = 0; ordered && i < samples.size(); i++) {
      Instant at = samples.get(i).at();
      if (i > 0 && samples.get(i - 1).at().compareTo(at) > 0) {
        ordered = false;
      } else if (at.isBefore(from)) {
        lo = i + 1;
      } else if (at.isAfter(now) && hi == samples.size()) {
        hi = i;
      }
    }
    if (ordered) {
      return samples.subList(lo, Math.max(lo, hi));
    }
    List<UtilisationSample> in = new ArrayList<>(samples.size());
    boolean sorted = true;
    for (UtilisationSample s : samples) {
      if (!s.at().isBefore(from) && !s.at().isAfter(now)) {
        if (sorted && !in.isEmpty() && in.get(in.size() - 1).at().compareTo(s.at()) > 0) {
          sorted = false;
        }
        in.add(s);
      }
    }
    if (!sorted) {
      in.sort(Comparator.comparing(UtilisationSample::at));
    }
    return in;
  }

  /**
   * Where the window's coverage first breaks: the index of the first sample more than
   * {@code maxSampleGap} after the previous one (after {@code from} for the first),
   * {@code in.size()} when the last is more than {@code maxSampleGap} before {@code now} (or there
   * is none), −1 when the window is observed end to end.
   */
  private int firstGap(List<UtilisationSample> in, Instant from, Instant now) {
    if (in.isEmpty()) {
      return 0;
    }
    Instant prev = from;
    for (int i = 0; i < in.size(); i++) {
      Instant at = in.get(i).at();
      if (Duration.between(prev, at).compareTo(config.maxSampleGap()) > 0) {
        return i;
      }
      prev = at;
    }
    return Duration.between(prev, now).compareTo(config.maxSampleGap()) > 0 ? in.size() : -1;
  }

  /** The trace's words for the coverage gap at {@code gap} ({@link #firstGap}, at least 0). */
  private String coverageGap(List<UtilisationSample> in, int gap, Instant from) {
    if (in.isEmpty()) {
      return "no samples in " + config.window();
    }
    Instant prev = gap == 0 ? from : in.get(gap - 1).at();
    if (gap == in.size()) {
      return "last sample " + prev + " older than " + config.maxSampleGap();
    }
    return "gap " + prev + " → " + in.get(gap).at() + " exceeds " + config.maxSampleGap();
  }

  /** The highest utilisation, NaN without samples (as {@code DoubleStream.max}: Math.max). */
  private static double peak(List<UtilisationSample> in) {
    if (in.isEmpty()) {
      return Double.NaN;
    }
    double peak = in.get(0).utilisation();
    for (int i = 1; i < in.size(); i++) {
      peak = Math.max(peak, in.get(i).utilisation());
    }
    return peak;
  }

  private static String pct(double f) {
    return Gpus.fmt(f * 100) + "%";
  }
}
