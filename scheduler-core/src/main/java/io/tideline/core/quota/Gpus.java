package io.tideline.core.quota;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** GPU arithmetic shared by the quota decisions: a micro-GPU grid and readable numbers in traces. */
final class Gpus {

  /** Tolerance below which two GPU quantities are equal (one micro-GPU). */
  static final double EPS = 1e-6;

  private Gpus() {}

  /** Snaps a quantity to the micro-GPU grid so repeated add/subtract never drifts. */
  static double snap(double gpus) {
    double s = Math.round(gpus * 1e6) / 1e6;
    return s == -0.0 ? 0.0 : s;
  }

  static boolean le(double a, double b) {
    return a <= b + EPS;
  }

  static boolean positive(double a) {
    return a > EPS;
  }

  /** Up to three decimals, no trailing zeros: 7, 3.5, 0.25. */
  static String fmt(double v) {
    if (Double.isInfinite(v)) {
      return v > 0 ? "unlimited" : "-unlimited";
    }
    if (Double.isNaN(v)) {
      return "NaN";
    }
    return BigDecimal.valueOf(v).setScale(3, RoundingMode.HALF_EVEN).stripTrailingZeros()
        .toPlainString();
  }
}
