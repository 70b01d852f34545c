package io.tideline.quota.config;

import io.tideline.core.admission.SubmissionLimits;
import io.tideline.core.pricing.DailySlotSchedule;
import io.tideline.core.pricing.PricingConfig;
import io.tideline.core.pricing.SlotTimeline;
import io.tideline.core.quota.IdleConfig;
import io.tideline.core.quota.QuotaConfig;
import io.tideline.core.quota.kernel.QuotaKernelConfig;
import io.tideline.platform.kernel.quota.QuotaHost;
import java.time.Duration;

/**
 * Everything the quota topology needs besides its serdes, as plain values: the topology is a static
 * factory that tests and the audit replay build without Quarkus.
 *
 * @param service service name written on dead letters
 * @param cluster the cluster this single writer serves (every input is keyed to it)
 * @param quota Q1–Q5, P3 numbers
 * @param idle Q7 numbers
 * @param pricing B1 prices
 * @param slots B1 slot map used for metering (default: F4's example day)
 * @param meteringInterval B1: a running job is billed at least this often
 * @param currency cost unit on billing records
 * @param maxAheadOfClock an input timed more than this after the last tick is dead-lettered
 * @param guaranteeReclaimRetry Q3: a guarantee reclaim still running this long is asked again
 * @param bootstrap the definition in force until one arrives on {@code quota.config}
 * @param intakeLimits bounds on submissions ({@code tideline.intake.*}), checked by the gate
 */
public record QuotaPolicy(
    String service,
    String cluster,
    QuotaConfig quota,
    IdleConfig idle,
    PricingConfig pricing,
    SlotTimeline slots,
    Duration meteringInterval,
    String currency,
    Duration maxAheadOfClock,
    Duration guaranteeReclaimRetry,
    BootstrapDefinition bootstrap,
    SubmissionLimits intakeLimits) {

  /** The bootstrap definition text and where it came from. */
  public record BootstrapDefinition(String source, String text) {}

  /** The core defaults with a bootstrap definition, for tests and tools. */
  public static QuotaPolicy defaults(String cluster, BootstrapDefinition bootstrap) {
    return new QuotaPolicy("quota-svc", cluster, QuotaConfig.DEFAULTS, IdleConfig.DEFAULTS,
        PricingConfig.DEFAULTS, DailySlotSchedule.EXAMPLE, QuotaKernelConfig.METERING_INTERVAL,
        "CU", QuotaKernelConfig.MAX_AHEAD_OF_CLOCK, QuotaKernelConfig.GUARANTEE_RECLAIM_RETRY,
        bootstrap, SubmissionLimits.DEFAULTS);
  }

  /**
   * The kernel's config, the bootstrap definition parsed and validated: a broken file fails here,
   * with every reason, rather than running without quotas.
   */
  public QuotaKernelConfig kernelConfig() {
    return new QuotaKernelConfig(cluster, quota, idle, pricing, slots, meteringInterval, currency,
        maxAheadOfClock, guaranteeReclaimRetry,
        bootstrap == null ? null : QuotaHost.bootstrap(bootstrap.source(), bootstrap.text()));
  }
}
