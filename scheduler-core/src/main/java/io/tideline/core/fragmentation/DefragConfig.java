package io.tideline.core.fragmentation;

import io.tideline.core.slots.SlotClass;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Defragmentation tunables.
 *
 * @param maxMigratedFraction T4: at most this fraction of the cluster's GPUs (by GPU share moved)
 *     may be migrated per period. Default 0.03 (3%).
 * @param period T4: the rate-limit window, counted back from {@code now}. Default 1 hour (the
 *     requirement leaves the period open; one slot-engine re-evaluation is the natural unit).
 * @param activeSlots T3: slot classes in which active defragmentation runs. Default TROUGH and
 *     DEEP_TROUGH. PEAK is refused whatever this says (T4: never at peak).
 * @param maxMigrationsPerPlan bound on the migrations one plan may propose, so a plan stays
 *     reviewable and its re-check cheap. Default 64.
 */
public record DefragConfig(double maxMigratedFraction, Duration period, Set<SlotClass> activeSlots,
    int maxMigrationsPerPlan) {

  /** The documented defaults. */
  public static final DefragConfig DEFAULTS = new DefragConfig(0.03, Duration.ofHours(1),
      EnumSet.of(SlotClass.TROUGH, SlotClass.DEEP_TROUGH), 64);

  public DefragConfig {
    Objects.requireNonNull(period, "period");
    if (!(maxMigratedFraction >= 0 && maxMigratedFraction <= 1)) {
      throw new IllegalArgumentException("maxMigratedFraction must be in [0, 1], got "
          + maxMigratedFraction);
    }
    if (maxMigrationsPerPlan < 0) {
      throw new IllegalArgumentException("maxMigrationsPerPlan must not be negative");
    }
    activeSlots = activeSlots.isEmpty() ? Collections.emptySet()
        : Collections.unmodifiableSet(EnumSet.copyOf(activeSlots));
  }
}
