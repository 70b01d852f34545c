package io.tideline.simulator;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Order statistics of the report, so every figure is computed the same way. */
final class Stats {

  private Stats() {}

  /** The median (linear interpolation); 0 for no values. */
  static double median(List<Double> values) {
    return quantile(values, 0.5);
  }

  /** The {@code q}-quantile with linear interpolation between order statistics; 0 for none. */
  static double quantile(List<Double> values, double q) {
    if (values.isEmpty()) {
      return 0;
    }
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    double pos = q * (sorted.size() - 1);
    int lo = (int) Math.floor(pos);
    int hi = Math.min(sorted.size() - 1, lo + 1);
    double frac = pos - lo;
    return sorted.get(lo) * (1 - frac) + sorted.get(hi) * frac;
  }
}
