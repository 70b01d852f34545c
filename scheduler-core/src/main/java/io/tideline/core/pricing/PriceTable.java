package io.tideline.core.pricing;

import io.tideline.core.slots.SlotClass;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The two-dimensional price table of requirement B1: slot class × GPU model, in currency per
 * GPU-hour. A model without its own row pays the default row.
 *
 * @param defaultRates price per GPU-hour by slot class for any model; every class must be priced
 * @param modelRates per-model overrides (a model row may price only some classes)
 */
public record PriceTable(
    Map<SlotClass, Double> defaultRates, Map<String, Map<SlotClass, Double>> modelRates) {

  /**
   * Defaults per GPU-hour: peak 1.2 and trough 0.3 (B1's example), flat 0.6 (half of peak: the
   * daytime base between the two), deep trough 0.2 (two thirds of trough: the strongest pull for
   * non-urgent work to the small hours).
   */
  public static final PriceTable DEFAULTS = new PriceTable(Map.of(
      SlotClass.DEEP_TROUGH, 0.2, SlotClass.TROUGH, 0.3, SlotClass.FLAT, 0.6,
      SlotClass.PEAK, 1.2), Map.of());

  public PriceTable {
    EnumMap<SlotClass, Double> d = new EnumMap<>(SlotClass.class);
    d.putAll(defaultRates);
    for (SlotClass c : SlotClass.values()) {
      Double r = d.get(c);
      if (r == null || !(r >= 0) || r.isInfinite()) {
        throw new IllegalArgumentException("default rate for " + c + " must be a price >= 0");
      }
    }
    TreeMap<String, Map<SlotClass, Double>> m = new TreeMap<>();
    modelRates.forEach((model, rates) -> {
      rates.forEach((c, r) -> {
        if (r == null || !(r >= 0) || r.isInfinite()) {
          throw new IllegalArgumentException("rate for " + model + "/" + c + " must be >= 0");
        }
      });
      m.put(model, Map.copyOf(rates));
    });
    defaultRates = Map.copyOf(d);
    modelRates = java.util.Collections.unmodifiableSortedMap(m);
  }

  /** This table with a row for one GPU model. */
  public PriceTable withModel(String model, Map<SlotClass, Double> rates) {
    TreeMap<String, Map<SlotClass, Double>> m = new TreeMap<>(modelRates);
    m.put(model, rates);
    return new PriceTable(defaultRates, m);
  }

  /** Price per GPU-hour of a model in a slot class. */
  public double rate(String model, SlotClass slot) {
    Map<SlotClass, Double> row = model == null ? null : modelRates.get(model);
    Double r = row == null ? null : row.get(slot);
    return r != null ? r : defaultRates.get(slot);
  }
}
