package io.tideline.quota.stream;

import java.math.BigDecimal;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A tenant's bill for one UTC day (store {@code quota-billing}, key = tenant + "/" + day), summed
 * from its {@code billing.usage} pieces; a piece counts on the day it starts.
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
public record BillingDay(String tenant, String day, String currency, BigDecimal amount,
    double gpuSeconds, SortedMap<String, BigDecimal> amountBySlot,
    SortedMap<String, Double> gpuSecondsBySlot, SortedMap<String, BigDecimal> amountByJob,
    long pieces) {

  static BillingDay empty(String tenant, String day, String currency) {
    return new BillingDay(tenant, day, currency, BigDecimal.ZERO, 0, new TreeMap<>(),
        new TreeMap<>(), new TreeMap<>(), 0);
  }

  BillingDay plus(String jobId, String slot, double gpuSec, BigDecimal amt) {
    TreeMap<String, BigDecimal> bySlot = new TreeMap<>(amountBySlot);
    bySlot.merge(slot, amt, BigDecimal::add);
    TreeMap<String, Double> secBySlot = new TreeMap<>(gpuSecondsBySlot);
    secBySlot.merge(slot, gpuSec, Double::sum);
    TreeMap<String, BigDecimal> byJob = new TreeMap<>(amountByJob);
    byJob.merge(jobId, amt, BigDecimal::add);
    return new BillingDay(tenant, day, currency, amount.add(amt), gpuSeconds + gpuSec, bySlot,
        secBySlot, byJob, pieces + 1);
  }
}
