package io.tideline.core.pricing;

import io.tideline.core.slots.SlotClass;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * Per-second metering (requirement B1): a run interval [from, to) is truncated to whole seconds,
 * split wherever the slot class changes, and each piece is priced at its slot's rate for the GPU
 * model and charge basis. The pieces are contiguous and their seconds add up to the interval's.
 */
public final class UsageMeter {

  /** Scale of money amounts. */
  public static final int AMOUNT_SCALE = 6;

  private static final BigDecimal SECONDS_PER_HOUR = BigDecimal.valueOf(3600);

  private final PricingConfig config;

  public UsageMeter(PricingConfig config) {
    this.config = config;
  }

  /**
   * The priced pieces of one run, in time order; empty when the run is shorter than a second.
   *
   * @param gpus GPUs held over the run (a fractional instance counts by its share)
   */
  public List<UsageRecord> meter(String tenant, String jobId, String gpuModel, double gpus,
      ChargeBasis basis, Instant from, Instant to, SlotTimeline slots) {
    Instant start = from.truncatedTo(ChronoUnit.SECONDS);
    Instant end = to.truncatedTo(ChronoUnit.SECONDS);
    List<UsageRecord> out = new ArrayList<>();
    Instant cursor = start;
    while (cursor.isBefore(end)) {
      // 1. The class in force here, and the next instant it actually changes (or the run's end).
      SlotClass slot = slots.slotAt(cursor);
      Instant next = slots.nextBoundaryAfter(cursor);
      while (next.isBefore(end) && slots.slotAt(next) == slot) {
        next = slots.nextBoundaryAfter(next);
      }
      Instant pieceEnd = next.isBefore(end) ? next.truncatedTo(ChronoUnit.SECONDS) : end;
      if (!pieceEnd.isAfter(cursor)) {
        pieceEnd = cursor.plusSeconds(1); // a sub-second slot: bill the whole second to its start
      }
      // 2. Price the piece.
      long seconds = Duration.between(cursor, pieceEnd).toSeconds();
      BigDecimal price = price(gpuModel, slot, basis);
      BigDecimal amount = price.multiply(BigDecimal.valueOf(gpus))
          .multiply(BigDecimal.valueOf(seconds))
          .divide(SECONDS_PER_HOUR, AMOUNT_SCALE, RoundingMode.HALF_EVEN);
      out.add(new UsageRecord(tenant, jobId, cursor, pieceEnd, gpus * seconds, gpuModel, slot,
          basis, price, amount));
      cursor = pieceEnd;
    }
    return out;
  }

  /** Effective price per GPU-hour: table rate × the basis multiplier. */
  public BigDecimal price(String gpuModel, SlotClass slot, ChargeBasis basis) {
    return BigDecimal.valueOf(config.table().rate(gpuModel, slot))
        .multiply(BigDecimal.valueOf(config.multiplier(basis)))
        .setScale(AMOUNT_SCALE, RoundingMode.HALF_EVEN).stripTrailingZeros();
  }

  /**
   * A run's cost before the per-record rounding of the bill, to 12 decimals: the sum of price × GPUs
   * × seconds over the pieces, divided by 3600 once. Comparing starts with it is free of rounding
   * noise (B2).
   */
  public BigDecimal exactCost(String gpuModel, double gpus, ChargeBasis basis, Instant from,
      Instant to, SlotTimeline slots) {
    BigDecimal gpuPriceSeconds = BigDecimal.ZERO;
    for (UsageRecord u : meter("", "", gpuModel, gpus, basis, from, to, slots)) {
      long seconds = Duration.between(u.from(), u.to()).toSeconds();
      gpuPriceSeconds = gpuPriceSeconds.add(u.pricePerGpuHour().multiply(BigDecimal.valueOf(gpus))
          .multiply(BigDecimal.valueOf(seconds)));
    }
    return gpuPriceSeconds.divide(SECONDS_PER_HOUR, 12, RoundingMode.HALF_EVEN);
  }

  /** Sum of the amounts of a run's records. */
  public static BigDecimal total(List<UsageRecord> records) {
    return records.stream().map(UsageRecord::amount).reduce(BigDecimal.ZERO, BigDecimal::add);
  }
}
