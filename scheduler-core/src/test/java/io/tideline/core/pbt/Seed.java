package io.tideline.core.pbt;

import org.quicktheories.QuickTheory;

/**
 * The one number a property run depends on: QuickTheories draws every generated value (and every
 * shrink step) from a PRNG started at this seed, so the same property with the same seed sees the
 * same inputs in the same order.
 *
 * <p>A property is a method taking a {@code Seed}: {@link SeededProperty} runs it once per seed of
 * the run, and a failing seed is kept as a plain test calling the same method with
 * {@link #of(long)} (see ADR 0009).
 *
 * @param value the PRNG seed
 * @param origin where the seed came from, for the report only
 */
public record Seed(long value, Origin origin) {

  /** Where a seed came from. */
  public enum Origin {
    /** One of {@link Seeds#FIXED}: the same in every run, on every machine. */
    FIXED,
    /** Drawn for this run (printed once per run and in every failure). */
    RANDOM,
    /** Given with {@code -Dtideline.pbt.seed=...}. */
    GIVEN,
    /** Written in a test: a failing seed kept as a named regression example. */
    PINNED
  }

  /** A seed written in a test: {@code property(Seed.of(-8137040377436446271L))}. */
  public static Seed of(long value) {
    return new Seed(value, Origin.PINNED);
  }

  /**
   * A QuickTheories run of {@code tries} examples drawn from this seed, shrinking a failure for at
   * most {@link Seeds#shrinkCycles()} steps. Its failure ends with "Seed was {@code value}".
   */
  public QuickTheory qt(int tries) {
    return QuickTheory.qt()
        .withFixedSeed(value)
        .withExamples(tries)
        .withShrinkCycles(Seeds.shrinkCycles());
  }

  @Override
  public String toString() {
    return "seed " + value + " (" + origin.name().toLowerCase(java.util.Locale.ROOT) + ")";
  }
}
