package io.tideline.core.preemption;

/**
 * Fast, locale-independent number formatting for trace lines. A decision over 10,000 candidates
 * writes 10,000 lines; {@code String.format} would dominate its run time.
 */
final class Numbers {

  private Numbers() {}

  /** {@code v} rounded to two decimals, e.g. {@code 1.3 → "1.30"}, {@code -0.004 → "0.00"}. */
  static String d2(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v) || Math.abs(v) >= 1e15) {
      return Double.toString(v);
    }
    long cents = Math.round(Math.abs(v) * 100);
    boolean negative = v < 0 && cents != 0;
    // 1. Digits right to left into a small buffer: two decimals, the point, the whole part.
    char[] buf = new char[20];
    int pos = buf.length;
    buf[--pos] = (char) ('0' + cents % 10);
    buf[--pos] = (char) ('0' + cents / 10 % 10);
    buf[--pos] = '.';
    long whole = cents / 100;
    do {
      buf[--pos] = (char) ('0' + whole % 10);
      whole /= 10;
    } while (whole > 0);
    // 2. The sign, only for a value that does not round to zero.
    if (negative) {
      buf[--pos] = '-';
    }
    return new String(buf, pos, buf.length - pos);
  }

  /**
   * Appends {@link #d2(double)} of {@code v} to {@code out} without an intermediate string: a trace
   * line is built in one buffer (thousands of lines per decision, so garbage matters).
   */
  static StringBuilder appendD2(StringBuilder out, double v) {
    if (Double.isNaN(v) || Double.isInfinite(v) || Math.abs(v) >= 1e15) {
      return out.append(v);
    }
    long cents = Math.round(Math.abs(v) * 100);
    if (v < 0 && cents != 0) {
      out.append('-');
    }
    long whole = cents / 100;
    if (whole < 10) {
      out.append((char) ('0' + whole));
    } else if (whole < 100) {
      out.append((char) ('0' + whole / 10)).append((char) ('0' + whole % 10));
    } else {
      appendLong(out, whole);
    }
    return out.append('.').append((char) ('0' + cents / 10 % 10))
        .append((char) ('0' + cents % 10));
  }

  /** Appends {@code v} in decimal, like {@code append(long)} but without {@code Long.getChars}. */
  static StringBuilder appendLong(StringBuilder out, long v) {
    if (v < 0) {
      return out.append(v);
    }
    long p = 1;
    while (p <= v / 10) {
      p *= 10;
    }
    for (; p > 0; p /= 10) {
      out.append((char) ('0' + v / p % 10));
    }
    return out;
  }

  /** {@code v} rounded to whole units. */
  static String d0(double v) {
    return Long.toString(Math.round(v));
  }
}
