package io.tideline.simulator;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

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

  /**
   * Fairness across tenants: Jain's index of each tenant's received ÷ demanded GPU-hours (1 = all
   * tenants got the same share of what they asked for; 1/n = one tenant got everything). Tenants
   * that demanded nothing are left out; 0 when none is left.
   */
  static double jainFairness(Map<String, Double> demanded, Map<String, Double> received) {
    double sum = 0;
    double sq = 0;
    int n = 0;
    for (Map.Entry<String, Double> e : demanded.entrySet()) {
      if (e.getValue() > 0) {
        double x = received.getOrDefault(e.getKey(), 0.0) / e.getValue();
        sum += x;
        sq += x * x;
        n++;
      }
    }
    return n == 0 || sq == 0 ? 0 : sum * sum / (n * sq);
  }
}
