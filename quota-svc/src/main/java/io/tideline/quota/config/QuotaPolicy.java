package io.tideline.quota.config;

import io.tideline.core.admission.SubmissionLimits;
import io.tideline.core.pricing.DailySlotSchedule;
import io.tideline.core.pricing.PricingConfig;
import io.tideline.core.pricing.SlotTimeline;
import io.tideline.core.quota.IdleConfig;
import io.tideline.core.quota.QuotaConfig;
import java.time.Duration;

/**
 * Everything the quota topology needs besides its serdes, as plain values: the topology is a static
 * factory that tests build without Quarkus.
 *
 * @param service service name written on dead letters
 * @param cluster the cluster this single writer serves (every input is keyed to it)
 * @param quota Q1–Q4, P3 numbers
 * @param idle Q7 numbers
 * @param pricing B1 prices
 * @param slots B1 slot map used for metering (default: F4's example day)
 * @param meteringInterval B1: a running job is billed at least this often
 * @param currency cost unit on billing records
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
    BootstrapDefinition bootstrap,
    SubmissionLimits intakeLimits) {

  /** The bootstrap definition text and where it came from. */
  public record BootstrapDefinition(String source, String text) {}

  /** The core defaults with a bootstrap definition, for tests and tools. */
  public static QuotaPolicy defaults(String cluster, BootstrapDefinition bootstrap) {
    return new QuotaPolicy("quota-svc", cluster, QuotaConfig.DEFAULTS, IdleConfig.DEFAULTS,
        PricingConfig.DEFAULTS, DailySlotSchedule.EXAMPLE, Duration.ofHours(1), "CU", bootstrap,
        SubmissionLimits.DEFAULTS);
  }
}
