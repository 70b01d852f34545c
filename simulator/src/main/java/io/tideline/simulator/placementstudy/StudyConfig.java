package io.tideline.simulator.placementstudy;

/**
 * The protocol's numbers (defaults: the published evaluation's).
 *
 * @param firstSeed first shuffle/inflation seed (default 42)
 * @param lastSeed last seed, inclusive (default 51)
 * @param inflationPct arrival is inflated (and cut) to this % of cluster GPU capacity (default 130)
 * @param stepPct the allocation curve is sampled every this many % of arrival (default 10)
 */
public record StudyConfig(long firstSeed, long lastSeed, int inflationPct, int stepPct) {

  public static final StudyConfig DEFAULTS = new StudyConfig(42, 51, 130, 10);

  public StudyConfig {
    if (lastSeed < firstSeed) {
      throw new IllegalArgumentException("seeds " + firstSeed + "-" + lastSeed + " are empty");
    }
    if (inflationPct < 100 || stepPct <= 0 || inflationPct % stepPct != 0) {
      throw new IllegalArgumentException("inflation " + inflationPct + "% must be ≥ 100 and a"
          + " multiple of the step " + stepPct + "%");
    }
  }

  /** These seeds. */
  public StudyConfig withSeeds(long first, long last) {
    return new StudyConfig(first, last, inflationPct, stepPct);
  }

  /** Curve points: stepPct, 2·stepPct, … inflationPct. */
  public int steps() {
    return inflationPct / stepPct;
  }

  public int seeds() {
    return (int) (lastSeed - firstSeed + 1);
  }
}
