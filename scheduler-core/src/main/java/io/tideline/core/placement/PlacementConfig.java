package io.tideline.core.placement;

import io.tideline.core.cluster.GpuModelNames;
import java.util.Objects;

/**
 * Placement tunables.
 *
 * @param crossSwitchSlowdown T1: fraction of gradient-sync bandwidth lost per switch tier a gang
 *     crosses beyond its access switch (cross-switch sync is 30–50% slower); the score is
 *     multiplied by {@code (1 - crossSwitchSlowdown)^tiers}. Default 0.4.
 * @param gpuModels T5: how a requested GPU model matches a node's reported model (a family name
 *     such as {@code H100} matches {@code NVIDIA H100 80GB HBM3}); default: no aliases, the built-in
 *     rule of {@link GpuModelNames}
 * @param scoring how single-node placements rank nodes (ADR 0037); default
 *     {@link NodeScoring#DEFAULTS}: best fit, as before
 */
public record PlacementConfig(double crossSwitchSlowdown, GpuModelNames gpuModels,
    NodeScoring scoring) {

  /** The documented defaults. */
  public static final PlacementConfig DEFAULTS = new PlacementConfig(0.4, GpuModelNames.DEFAULTS);

  /** The given slowdown and model matching, best-fit scoring. */
  public PlacementConfig(double crossSwitchSlowdown, GpuModelNames gpuModels) {
    this(crossSwitchSlowdown, gpuModels, NodeScoring.DEFAULTS);
  }

  /** The given slowdown with the default model matching. */
  public PlacementConfig(double crossSwitchSlowdown) {
    this(crossSwitchSlowdown, GpuModelNames.DEFAULTS);
  }

  public PlacementConfig {
    Objects.requireNonNull(gpuModels, "gpuModels");
    Objects.requireNonNull(scoring, "scoring");
    if (!(crossSwitchSlowdown >= 0 && crossSwitchSlowdown < 1)) {
      throw new IllegalArgumentException("crossSwitchSlowdown must be in [0, 1), got "
          + crossSwitchSlowdown);
    }
  }

  /** This configuration ranking nodes by {@code s}. */
  public PlacementConfig withScoring(NodeScoring s) {
    return new PlacementConfig(crossSwitchSlowdown, gpuModels, s);
  }
}
