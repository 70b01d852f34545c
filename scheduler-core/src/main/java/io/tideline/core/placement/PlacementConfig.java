package io.tideline.core.placement;

/**
 * Placement tunables.
 *
 * @param crossSwitchSlowdown T1: fraction of gradient-sync bandwidth lost per switch tier a gang
 *     crosses beyond its access switch (cross-switch sync is 30–50% slower); the score is
 *     multiplied by {@code (1 - crossSwitchSlowdown)^tiers}. Default 0.4.
 */
public record PlacementConfig(double crossSwitchSlowdown) {

  /** The documented defaults. */
  public static final PlacementConfig DEFAULTS = new PlacementConfig(0.4);

  public PlacementConfig {
    if (!(crossSwitchSlowdown >= 0 && crossSwitchSlowdown < 1)) {
      throw new IllegalArgumentException("crossSwitchSlowdown must be in [0, 1), got "
          + crossSwitchSlowdown);
    }
  }
}
