package io.tideline.core.preemption;

/**
 * What evicting one job costs (P4), term by term so a notice or an audit can show where the price
 * comes from. All terms are wall seconds during which the job's GPUs do no useful work.
 *
 * @param writeSeconds checkpoint write at eviction
 * @param restoreSeconds state restore at restart
 * @param commRebuildSeconds collective-communication rebuild at restart
 * @param lostProgressSeconds work done since the last checkpoint, redone after restart
 * @param cacheWarmupSeconds data-cache warm-up thrown away (0 if the cache was still cold)
 * @param gpusHeld GPUs that sit through all of the above
 */
public record MigrationCost(
    double writeSeconds,
    double restoreSeconds,
    double commRebuildSeconds,
    double lostProgressSeconds,
    double cacheWarmupSeconds,
    double gpusHeld) {

  private static final double SECONDS_PER_HOUR = 3600.0;

  /** Sum of the terms, in seconds. */
  public double wallSeconds() {
    return writeSeconds + restoreSeconds + commRebuildSeconds + lostProgressSeconds
        + cacheWarmupSeconds;
  }

  /** The P4 cost in equivalent GPU-hours: wall seconds × GPUs held. */
  public double gpuHours() {
    return wallSeconds() * gpusHeld / SECONDS_PER_HOUR;
  }
}
