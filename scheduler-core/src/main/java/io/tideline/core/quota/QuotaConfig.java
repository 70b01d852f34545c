package io.tideline.core.quota;

import java.time.Duration;

/**
 * The quota policy's numbers, each a documented default taken from the requirements.
 *
 * @param onlineGuaranteeFraction Q1: share of each online service's historical peak that is locked
 *     as its guarantee; default 0.70
 * @param fairShareHalfLife Q4: half-life of the decayed usage that orders borrowers; default 7 days
 * @param preemptionCooldown P3: after a preemption the job may only run on guaranteed quota for this
 *     long; default 30 minutes
 * @param rulesVersion version of these rules, combined with the definition's version into the policy
 *     version every verdict carries (O2 replay)
 */
public record QuotaConfig(
    double onlineGuaranteeFraction,
    Duration fairShareHalfLife,
    Duration preemptionCooldown,
    String rulesVersion) {

  /** The documented defaults. */
  public static final QuotaConfig DEFAULTS =
      new QuotaConfig(0.70, Duration.ofDays(7), Duration.ofMinutes(30), "quota-rules-2");

  public QuotaConfig {
    if (!(onlineGuaranteeFraction >= 0 && onlineGuaranteeFraction <= 1)) {
      throw new IllegalArgumentException(
          "onlineGuaranteeFraction must be in [0, 1], got " + onlineGuaranteeFraction);
    }
    if (fairShareHalfLife == null || fairShareHalfLife.isNegative() || fairShareHalfLife.isZero()) {
      throw new IllegalArgumentException("fairShareHalfLife must be positive");
    }
    if (preemptionCooldown == null || preemptionCooldown.isNegative()) {
      throw new IllegalArgumentException("preemptionCooldown must not be negative");
    }
  }
}
