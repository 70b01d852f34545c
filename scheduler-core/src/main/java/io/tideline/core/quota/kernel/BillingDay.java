package io.tideline.core.quota.kernel;

import io.tideline.core.pricing.UsageMeter;
import java.math.BigDecimal;
import java.util.Collections;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

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
    amountMicrosBySlot = Collections.unmodifiableSortedMap(new TreeMap<>(amountMicrosBySlot));
    microGpuSecondsBySlot = Collections.unmodifiableSortedMap(new TreeMap<>(microGpuSecondsBySlot));
    amountMicrosByJob = Collections.unmodifiableSortedMap(new TreeMap<>(amountMicrosByJob));
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
    TreeMap<String, Long> bySlot = new TreeMap<>(amountMicrosBySlot);
    bySlot.merge(slot, amtMicros, Long::sum);
    TreeMap<String, Long> secBySlot = new TreeMap<>(microGpuSecondsBySlot);
    secBySlot.merge(slot, microGpuSec, Long::sum);
    TreeMap<String, Long> byJob = new TreeMap<>(amountMicrosByJob);
    byJob.merge(jobId, amtMicros, Long::sum);
    return new BillingDay(tenant, day, currency, amountMicros + amtMicros,
        microGpuSeconds + microGpuSec, bySlot, secBySlot, byJob, pieces + 1);
  }
}
