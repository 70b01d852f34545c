package io.tideline.core.placement;

/**
 * Queue boost owed to a job that was preempted (P6), as input to queue order: more levels run
 * first.
 *
 * @param levels boost levels; 0 = none, not negative
 */
public record CompensationBoost(int levels) {

  /** No boost. */
  public static final CompensationBoost NONE = new CompensationBoost(0);

  public CompensationBoost {
    if (levels < 0) {
      throw new IllegalArgumentException("levels must not be negative, got " + levels);
    }
  }
}
