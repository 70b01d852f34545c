package io.tideline.core.pricing;

import io.tideline.core.slots.SlotClass;
import java.math.BigDecimal;
import java.time.Instant;

/**
 * One priced piece of a job's run, inside a single slot class (a {@code billing.usage} event, B1).
 *
 * @param tenant who pays
 * @param jobId the job
 * @param from start of the piece (whole second, inclusive)
 * @param to end of the piece (whole second, exclusive)
 * @param gpuSeconds GPUs × seconds of the piece
 * @param gpuModel GPU model used
 * @param slotClass slot class in force for the whole piece
 * @param basis reserved, on-demand or burst
 * @param pricePerGpuHour effective rate: table rate × basis multiplier
 * @param amount price × GPU-seconds / 3600, to 6 decimals (half-even)
 */
public record UsageRecord(
    String tenant,
    String jobId,
    Instant from,
    Instant to,
    double gpuSeconds,
    String gpuModel,
    SlotClass slotClass,
    ChargeBasis basis,
    BigDecimal pricePerGpuHour,
    BigDecimal amount) {}
