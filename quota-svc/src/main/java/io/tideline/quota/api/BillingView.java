package io.tideline.quota.api;

import io.tideline.core.pricing.UsageMeter;
import io.tideline.core.quota.kernel.BillingDay;
import java.math.BigDecimal;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A tenant's bill for one UTC day as {@code GET /quota/billing/{tenant}/{day}} serves it, from the
 * kernel's exact {@link BillingDay} (integer millionths and micro-GPU-seconds).
 *
 * @param tenant business line billed
 * @param day ISO date (UTC)
 * @param currency cost unit
 * @param amount total charge
 * @param gpuSeconds total GPU-seconds
 * @param amountBySlot charge per slot class
 * @param gpuSecondsBySlot GPU-seconds per slot class
 * @param amountByJob charge per job
 * @param pieces number of metered pieces
 */
public record BillingView(String tenant, String day, String currency, BigDecimal amount,
    double gpuSeconds, SortedMap<String, BigDecimal> amountBySlot,
    SortedMap<String, Double> gpuSecondsBySlot, SortedMap<String, BigDecimal> amountByJob,
    long pieces) {

  static BillingView of(BillingDay b) {
    TreeMap<String, BigDecimal> bySlot = new TreeMap<>();
    b.amountMicrosBySlot().forEach((k, v) -> bySlot.put(k, money(v)));
    TreeMap<String, Double> secBySlot = new TreeMap<>();
    b.microGpuSecondsBySlot().forEach((k, v) -> secBySlot.put(k, v / 1e6));
    TreeMap<String, BigDecimal> byJob = new TreeMap<>();
    b.amountMicrosByJob().forEach((k, v) -> byJob.put(k, money(v)));
    return new BillingView(b.tenant(), b.day(), b.currency(), money(b.amountMicros()),
        b.gpuSeconds(), bySlot, secBySlot, byJob, b.pieces());
  }

  private static BigDecimal money(long micros) {
    return BigDecimal.valueOf(micros, UsageMeter.AMOUNT_SCALE).stripTrailingZeros();
  }
}
