package io.tideline.core.preemption;

/**
 * Fast, locale-independent number formatting for trace lines. A decision over 10,000 candidates
 * writes 10,000 lines; {@code String.format} would dominate its run time.
 */
final class Numbers {

  private Numbers() {}

  /** {@code v} rounded to two decimals, e.g. {@code 1.3 → "1.30"}, {@code -0.004 → "0.00"}. */
  static String d2(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return Double.toString(v);
    }
    long cents = Math.round(Math.abs(v) * 100);
    boolean negative = v < 0 && cents != 0;
    long whole = cents / 100;
    long frac = cents % 100;
    return (negative ? "-" : "") + whole + (frac < 10 ? ".0" : ".") + frac;
  }

  /** {@code v} rounded to whole units. */
  static String d0(double v) {
    return Long.toString(Math.round(v));
  }
}
