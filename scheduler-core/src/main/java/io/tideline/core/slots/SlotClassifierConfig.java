package io.tideline.core.slots;

/**
 * Settings of the F4 slot engine.
 *
 * @param seed seed of the K-means++ random generator, so the same profile always yields the same
 *     map (F4, O2 replay); default 20261102
 * @param maxIterations upper bound on K-means iterations (F4); default 300, far above what a
 *     one-dimensional profile of at most 1,440 points needs to converge
 */
public record SlotClassifierConfig(long seed, int maxIterations) {

  /** The documented defaults. */
  public static final SlotClassifierConfig DEFAULTS = new SlotClassifierConfig(20261102L, 300);

  public SlotClassifierConfig {
    if (maxIterations <= 0) {
      throw new IllegalArgumentException("maxIterations must be positive: " + maxIterations);
    }
  }
}
