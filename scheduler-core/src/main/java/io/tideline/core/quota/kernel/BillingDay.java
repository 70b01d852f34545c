package io.tideline.core.quota.kernel;

import io.tideline.core.pricing.UsageMeter;
import java.math.BigDecimal;
import java.util.Comparator;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import org.pcollections.TreePMap;

/**
 * A tenant's bill for one UTC day (table {@value QuotaKernelState#BILLING}, id = tenant + "/" +
 * day), summed from its metered pieces (B1); a piece counts on the day it starts. Exact: amounts in
 * integer millionths of the currency unit (the meter's scale, {@link UsageMeter#AMOUNT_SCALE}),
 * GPU time in integer micro-GPU-seconds (GPUs on the micro-GPU grid × whole seconds), so a
 * restored bill adds up bit for bit as the uninterrupted one.
 *
 * @param tenant business line billed
 * @param day ISO date (UTC)
 * @param currency cost unit
 * @param amountMicros total charge, millionths of the currency unit
 * @param microGpuSeconds total GPU time, micro-GPU-seconds
 * @param amountMicrosBySlot charge per slot class name
 * @param microGpuSecondsBySlot GPU time per slot class name
 * @param amountMicrosByJob charge per job
 * @param pieces number of metered pieces
 */
public record BillingDay(String tenant, String day, String currency, long amountMicros,
    long microGpuSeconds, SortedMap<String, Long> amountMicrosBySlot,
    SortedMap<String, Long> microGpuSecondsBySlot, SortedMap<String, Long> amountMicrosByJob,
    long pieces) {

  public BillingDay {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(day, "day");
    amountMicrosBySlot = persistent(amountMicrosBySlot);
    microGpuSecondsBySlot = persistent(microGpuSecondsBySlot);
    amountMicrosByJob = persistent(amountMicrosByJob);
  }

  /**
   * The map as an immutable, persistent sorted map (same entries, same order): one that already
   * is, in natural key order, is taken as it is; {@link #plus} adds to it in O(log n) instead of
   * copying the day's per-job map (twice) for every metered piece.
   */
  private static TreePMap<String, Long> persistent(SortedMap<String, Long> m) {
    if (m instanceof TreePMap<String, Long> p
        && (p.comparator() == null || p.comparator() == Comparator.naturalOrder())) {
      return p;
    }
    return m.comparator() == null ? TreePMap.from(m) : TreePMap.fromSortedMap(m);
  }

  /** {@code m} with {@code add} added to {@code key}'s value (absent: {@code add}). */
  private static TreePMap<String, Long> merged(SortedMap<String, Long> m, String key, long add) {
    TreePMap<String, Long> p = persistent(m);
    Long old = p.get(key);
    return p.plus(key, old == null ? add : old + add);
  }

  /** The table id of a tenant's day. */
  public static String id(String tenant, String day) {
    return tenant + "/" + day;
  }

  static BillingDay empty(String tenant, String day, String currency) {
    return new BillingDay(tenant, day, currency, 0, 0, new TreeMap<>(), new TreeMap<>(),
        new TreeMap<>(), 0);
  }

  /** The total charge. */
  public BigDecimal amount() {
    return BigDecimal.valueOf(amountMicros, UsageMeter.AMOUNT_SCALE);
  }

  /** The total GPU time in GPU-seconds. */
  public double gpuSeconds() {
    return microGpuSeconds / 1e6;
  }

  /** Micro-units of an amount on the meter's scale (exact: the meter rounds to that scale). */
  static long micros(BigDecimal amount) {
    return amount.setScale(UsageMeter.AMOUNT_SCALE).unscaledValue().longValueExact();
  }

  BillingDay plus(String jobId, String slot, long microGpuSec, long amtMicros) {
    return new BillingDay(tenant, day, currency, amountMicros + amtMicros,
        microGpuSeconds + microGpuSec, merged(amountMicrosBySlot, slot, amtMicros),
        merged(microGpuSecondsBySlot, slot, microGpuSec), merged(amountMicrosByJob, jobId,
            amtMicros), pieces + 1);
  }
}
