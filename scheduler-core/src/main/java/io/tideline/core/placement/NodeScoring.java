package io.tideline.core.placement;

import java.util.Objects;

/**
 * How the placer ranks the nodes that can take a single-node placement (ADR 0037).
 *
 * @param rule {@link Rule#BEST_FIT} (the default: the rules of {@link Placer} as before) or
 *     {@link Rule#FRAGMENTATION} (least growth of expected fragmentation first, the best-fit keys
 *     on ties)
 * @param mix the expected demand the fragmentation is measured against; empty = no term
 * @param tolerance growths of expected fragmentation within this many GPUs tie (default 1e-6)
 */
public record NodeScoring(Rule rule, DemandMix mix, double tolerance) {

  /** The documented default: best fit, no demand mix. */
  public static final NodeScoring DEFAULTS = new NodeScoring(Rule.BEST_FIT, DemandMix.EMPTY, 1e-6);

  /** The ranking rules. */
  public enum Rule {
    /** Fewest usable, then fewest idle GPUs (fractional: tightest GPU, fullest node). */
    BEST_FIT,
    /** Least growth of expected fragmentation under the demand mix, then best fit. */
    FRAGMENTATION
  }

  /** Fragmentation scoring against {@code mix}, default tolerance. */
  public static NodeScoring fragmentation(DemandMix mix) {
    return new NodeScoring(Rule.FRAGMENTATION, mix, DEFAULTS.tolerance());
  }

  public NodeScoring {
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(mix, "mix");
    if (!(tolerance >= 0)) {
      throw new IllegalArgumentException("tolerance must be ≥ 0, got " + tolerance);
    }
  }

  /** Whether the fragmentation term ranks nodes. */
  public boolean fragmentationAware() {
    return rule == Rule.FRAGMENTATION && !mix.isEmpty();
  }
}
