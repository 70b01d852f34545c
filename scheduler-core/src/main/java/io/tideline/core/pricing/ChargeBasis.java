package io.tideline.core.pricing;

/**
 * On what terms GPUs were used (B1): reserved capacity gets a discount, a burst beyond the
 * reservation pays a premium, everything else pays the table rate.
 */
public enum ChargeBasis {
  /** Reserved / guaranteed capacity: table rate minus the reserved discount. */
  RESERVED,
  /** Shared pool capacity: the table rate. */
  ON_DEMAND,
  /** Temporary over-issue beyond the reservation (F3): table rate plus the burst premium. */
  BURST
}
