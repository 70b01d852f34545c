package io.tideline.core.fragmentation;

import java.time.Instant;
import java.util.Collection;
import java.util.Locale;

/**
 * The T4 rate limit as a number: GPU share that may still be migrated at {@code now}, i.e.
 * {@code maxMigratedFraction × cluster GPUs} minus what was moved in the window
 * {@code (now - period, now]}.
 */
final class MigrationBudget {

  private MigrationBudget() {}

  static double remaining(DefragConfig config, Instant now, int clusterGpus,
      Collection<PastMigration> recent) {
    Instant from = now.minus(config.period());
    double used = 0;
    for (PastMigration m : recent) {
      if (m.at().isAfter(from) && !m.at().isAfter(now)) {
        used += m.gpuShare();
      }
    }
    return Math.max(0.0, config.maxMigratedFraction() * clusterGpus - used);
  }

  static String describe(DefragConfig config, int clusterGpus, double remaining) {
    return String.format(Locale.ROOT, "%.2f of %.2f GPUs (%.1f%% of %d) left in the last %s",
        remaining, config.maxMigratedFraction() * clusterGpus,
        config.maxMigratedFraction() * 100, clusterGpus, config.period());
  }
}
