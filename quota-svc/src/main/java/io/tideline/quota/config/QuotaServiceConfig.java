package io.tideline.quota.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.tideline.core.pricing.PriceTable;
import io.tideline.core.pricing.PricingConfig;
import io.tideline.core.quota.IdleConfig;
import io.tideline.core.quota.QuotaConfig;
import io.tideline.core.slots.SlotClass;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The quota service's policy numbers ({@code tideline.quota.*}). Every unset value takes the
 * documented default of the core's {@link QuotaConfig#DEFAULTS}, {@link IdleConfig#DEFAULTS} and
 * {@link PricingConfig#DEFAULTS}, so the requirement figures live in one place (the core) and are
 * overridable here without code changes.
 */
@ConfigMapping(prefix = "tideline.quota")
public interface QuotaServiceConfig {

  /** Q1: share of an online service's historical peak locked as its guarantee (default 0.70). */
  Optional<Double> onlineGuaranteeFraction();

  /** Q4: half-life of the decayed fair-share usage (default 7 days, {@code P7D}). */
  Optional<Duration> fairShareHalfLife();

  /** P3: after a preemption the job may only run on guaranteed quota this long (default 30 min). */
  Optional<Duration> preemptionCooldown();

  /** O2: version of the rules, part of every verdict's policy version (default quota-rules-2). */
  Optional<String> rulesVersion();

  /**
   * Q2: the bootstrap quota definition (YAML or JSON): a file path, or {@code classpath:NAME}. It is
   * in force until a definition arrives on {@code quota.config}.
   */
  @WithDefault("classpath:quota/definition.yaml")
  String definitionFile();

  /** B1: how often a running job's usage is metered and billed between its start and end. */
  @WithDefault("PT1H")
  Duration meteringInterval();

  /**
   * Issue #16: an input whose event time is more than this after the cluster clock (the last
   * tick) is dead-lettered instead of waiting for a tick that may never come (default 1 day,
   * {@code QuotaKernelConfig.MAX_AHEAD_OF_CLOCK}).
   */
  Optional<Duration> maxAheadOfClock();

  /**
   * Q3: a guarantee reclaim whose borrowers still run this long after it was requested on
   * {@code quota.reclaims} is requested again for them (default 5 min,
   * {@code QuotaKernelConfig.GUARANTEE_RECLAIM_RETRY}).
   */
  Optional<Duration> guaranteeReclaimRetry();

  /** Currency or cost unit written on {@code billing.usage}. */
  @WithDefault("CU")
  String currency();

  /** Q7 idle reclamation. */
  Idle idle();

  /** B1 prices. */
  Pricing pricing();

  /** Q7 numbers; defaults from {@link IdleConfig#DEFAULTS}. */
  interface Idle {
    /** Q7: utilisation under this for the whole window → shrink (default 0.50). */
    Optional<Double> shrinkBelowUtilisation();

    /** Q7: utilisation under this for the whole window → reclaim (default 0.05). */
    Optional<Double> reclaimBelowUtilisation();

    /** Q7: how long utilisation must stay low (default 1 h). */
    Optional<Duration> window();

    /** Q7: largest gap between samples for the window to count as observed (default 5 min). */
    Optional<Duration> maxSampleGap();

    /** Q7: doubling GPUs divides run time by this (default 1.5: 4 → 2 GPUs, 10 h → 15 h). */
    Optional<Double> speedupPerDoubling();

    /** Q7: never recommend fewer GPUs than this (default 1). */
    Optional<Integer> minGpus();
  }

  /** B1 numbers; defaults from {@link PricingConfig#DEFAULTS}. */
  interface Pricing {
    /** B1: price per GPU-hour in a peak slot (default 1.2). */
    Optional<Double> peak();

    /** B1: price per GPU-hour in a flat slot (default 0.6). */
    Optional<Double> flat();

    /** B1: price per GPU-hour in a trough slot (default 0.3). */
    Optional<Double> trough();

    /** B1: price per GPU-hour in a deep-trough slot (default 0.2). */
    Optional<Double> deepTrough();

    /** B1: reserved (guaranteed) usage pays (1 − this) × rate (default 0.30). */
    Optional<Double> reservedDiscount();

    /** B1: burst usage pays (1 + this) × rate (default 0.25). */
    Optional<Double> burstPremium();
  }

  /** The core's quota numbers in force. */
  default QuotaConfig quota() {
    QuotaConfig d = QuotaConfig.DEFAULTS;
    return new QuotaConfig(onlineGuaranteeFraction().orElse(d.onlineGuaranteeFraction()),
        fairShareHalfLife().orElse(d.fairShareHalfLife()),
        preemptionCooldown().orElse(d.preemptionCooldown()), rulesVersion().orElse(d.rulesVersion()));
  }

  /** The core's idle numbers in force. */
  default IdleConfig idleConfig() {
    IdleConfig d = IdleConfig.DEFAULTS;
    Idle i = idle();
    return new IdleConfig(i.shrinkBelowUtilisation().orElse(d.shrinkBelowUtilisation()),
        i.reclaimBelowUtilisation().orElse(d.reclaimBelowUtilisation()),
        i.window().orElse(d.window()), i.maxSampleGap().orElse(d.maxSampleGap()),
        i.speedupPerDoubling().orElse(d.speedupPerDoubling()), i.minGpus().orElse(d.minGpus()));
  }

  /** The core's pricing in force. */
  default PricingConfig pricingConfig() {
    PricingConfig d = PricingConfig.DEFAULTS;
    Map<SlotClass, Double> r = d.table().defaultRates();
    Pricing p = pricing();
    PriceTable table = new PriceTable(Map.of(
        SlotClass.PEAK, p.peak().orElse(r.get(SlotClass.PEAK)),
        SlotClass.FLAT, p.flat().orElse(r.get(SlotClass.FLAT)),
        SlotClass.TROUGH, p.trough().orElse(r.get(SlotClass.TROUGH)),
        SlotClass.DEEP_TROUGH, p.deepTrough().orElse(r.get(SlotClass.DEEP_TROUGH))), Map.of());
    return new PricingConfig(table, p.reservedDiscount().orElse(d.reservedDiscount()),
        p.burstPremium().orElse(d.burstPremium()));
  }
}
