package io.tideline.core.placement;

import java.util.Objects;

/**
 * How the placer ranks the nodes that can take a single-node placement (ADR 0037, ADR 0038).
 *
 * @param rule {@link Rule#BEST_FIT} (the default: the rules of {@link Placer} as before) or
 *     {@link Rule#FRAGMENTATION} (least growth of expected fragmentation first, the best-fit keys
 *     on ties)
 * @param mix the expected demand the fragmentation is measured against when it is given
 *     ({@link Source#GIVEN}); empty = no term
 * @param tolerance growths of expected fragmentation within this many GPUs tie (default 1e-6)
 * @param source where the expected demand comes from: {@link Source#GIVEN} ({@code mix}) or
 *     {@link Source#LIVE} (the jobs running and waiting when the pass runs, ADR 0038)
 * @param liveShapes with {@link Source#LIVE}, the live mix keeps its heaviest this many shapes
 *     (default {@link DemandMix#DEFAULT_MAX_SHAPES})
 */
public record NodeScoring(Rule rule, DemandMix mix, double tolerance, Source source,
    int liveShapes) {

  /** The documented default: best fit, no demand mix. */
  public static final NodeScoring DEFAULTS = new NodeScoring(Rule.BEST_FIT, DemandMix.EMPTY, 1e-6,
      Source.GIVEN, DemandMix.DEFAULT_MAX_SHAPES);

  /** The ranking rules. */
  public enum Rule {
    /** Fewest usable, then fewest idle GPUs (fractional: tightest GPU, fullest node). */
    BEST_FIT,
    /** Least growth of expected fragmentation under the demand mix, then best fit. */
    FRAGMENTATION
  }

  /** Where the expected demand of {@link Rule#FRAGMENTATION} comes from. */
  public enum Source {
    /** The {@link #mix} given in the configuration (a study, a benchmark, a test). */
    GIVEN,
    /**
     * The shapes of the jobs running and waiting when the queue pass runs, counted once each
     * ({@link DemandMix#of}): what the fleet carries and asks now is what is expected next (the
     * population the fragmentation index of T2 is measured against).
     */
    LIVE
  }

  /** Fragmentation scoring against {@code mix}, default tolerance. */
  public static NodeScoring fragmentation(DemandMix mix) {
    return new NodeScoring(Rule.FRAGMENTATION, mix, DEFAULTS.tolerance(), Source.GIVEN,
        DEFAULTS.liveShapes());
  }

  /** Fragmentation scoring against the live mix (ADR 0038), default tolerance and shapes. */
  public static NodeScoring live() {
    return new NodeScoring(Rule.FRAGMENTATION, DemandMix.EMPTY, DEFAULTS.tolerance(), Source.LIVE,
        DEFAULTS.liveShapes());
  }

  public NodeScoring {
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(mix, "mix");
    Objects.requireNonNull(source, "source");
    if (!(tolerance >= 0)) {
      throw new IllegalArgumentException("tolerance must be ≥ 0, got " + tolerance);
    }
    if (liveShapes < 1) {
      throw new IllegalArgumentException("liveShapes must be ≥ 1, got " + liveShapes);
    }
  }

  /** Whether the queue pass hands the placer the live mix (fragmentation rule, live source). */
  public boolean liveMix() {
    return rule == Rule.FRAGMENTATION && source == Source.LIVE;
  }
}
