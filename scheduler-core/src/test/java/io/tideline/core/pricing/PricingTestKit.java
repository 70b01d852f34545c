package io.tideline.core.pricing;

import java.time.Instant;

/** Fixed instants and a meter with the documented defaults, for pricing scenarios. */
final class PricingTestKit {

  static final Instant DAY = Instant.parse("2026-11-02T00:00:00Z");

  private PricingTestKit() {}

  static Instant at(String hhmmss) {
    return Instant.parse("2026-11-02T" + hhmmss + "Z");
  }

  static Instant nextDay(String hhmmss) {
    return Instant.parse("2026-11-03T" + hhmmss + "Z");
  }

  static UsageMeter meter() {
    return new UsageMeter(PricingConfig.DEFAULTS);
  }
}
