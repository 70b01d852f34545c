package io.tideline.core.pricing;

/**
 * Billing numbers (requirement B1).
 *
 * @param table B1 price table, slot class × GPU model, per GPU-hour
 * @param reservedDiscount B1 reserved discount: reserved usage pays (1 − this) × rate; default 0.30
 *     (B1 gives no figure: a third off, like a typical committed-use discount)
 * @param burstPremium B1 burst premium: burst usage pays (1 + this) × rate; default 0.25 (B1 gives no
 *     figure)
 */
public record PricingConfig(PriceTable table, double reservedDiscount, double burstPremium) {

  /** The documented defaults. */
  public static final PricingConfig DEFAULTS = new PricingConfig(PriceTable.DEFAULTS, 0.30, 0.25);

  public PricingConfig {
    if (!(reservedDiscount >= 0 && reservedDiscount <= 1) || !(burstPremium >= 0)) {
      throw new IllegalArgumentException("need reservedDiscount in [0, 1], burstPremium >= 0");
    }
  }

  /** Multiplier applied to the table rate for a charge basis. */
  public double multiplier(ChargeBasis basis) {
    return switch (basis) {
      case RESERVED -> 1 - reservedDiscount;
      case ON_DEMAND -> 1;
      case BURST -> 1 + burstPremium;
    };
  }
}
