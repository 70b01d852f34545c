package io.tideline.placement.ledger;

import io.tideline.core.fragmentation.DefragConfig;
import io.tideline.core.fragmentation.FragmentationReporting;
import io.tideline.core.placement.PlacementConfig;
import io.tideline.core.slots.SlotClass;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything the ledger topology needs to decide, as one immutable value (so the topology factory
 * is a pure function of it and tests build it without Quarkus). Defaults and requirement IDs are
 * documented on {@link io.tideline.placement.PlacementSettings}.
 *
 * @param defaultCluster cluster of inputs that carry none (jobs, verdicts, reservations, forecasts)
 * @param policyVersion written into every decision
 * @param placement placement tunables (T1)
 * @param maxFailuresPerLane Q6 backfill depth per pass
 * @param defrag T3/T4 defragmentation tunables
 * @param activeDefragInterval least logical time between active rounds
 * @param defaultSlotClass slot class until a forecast names one
 * @param evictionGraceSeconds grace given to evicted jobs
 * @param fragmentationReporting T2 events: when a fragmentation report is published
 */
public record LedgerPolicy(String defaultCluster, String policyVersion, PlacementConfig placement,
    int maxFailuresPerLane, DefragConfig defrag, Duration activeDefragInterval,
    SlotClass defaultSlotClass, long evictionGraceSeconds,
    FragmentationReporting.Config fragmentationReporting) {

  /** A policy with the default fragmentation reporting. */
  public LedgerPolicy(String defaultCluster, String policyVersion, PlacementConfig placement,
      int maxFailuresPerLane, DefragConfig defrag, Duration activeDefragInterval,
      SlotClass defaultSlotClass, long evictionGraceSeconds) {
    this(defaultCluster, policyVersion, placement, maxFailuresPerLane, defrag,
        activeDefragInterval, defaultSlotClass, evictionGraceSeconds,
        FragmentationReporting.Config.DEFAULTS);
  }

  public LedgerPolicy {
    Objects.requireNonNull(fragmentationReporting, "fragmentationReporting");
    Objects.requireNonNull(defaultCluster, "defaultCluster");
    Objects.requireNonNull(policyVersion, "policyVersion");
    Objects.requireNonNull(placement, "placement");
    Objects.requireNonNull(defrag, "defrag");
    Objects.requireNonNull(activeDefragInterval, "activeDefragInterval");
    Objects.requireNonNull(defaultSlotClass, "defaultSlotClass");
    if (maxFailuresPerLane < 1) {
      throw new IllegalArgumentException("maxFailuresPerLane must be at least 1");
    }
  }

  /** The documented defaults for {@code cluster}. */
  public static LedgerPolicy defaults(String cluster) {
    return new LedgerPolicy(cluster, "placement-1", PlacementConfig.DEFAULTS, 8,
        DefragConfig.DEFAULTS, Duration.ofMinutes(15), SlotClass.FLAT, 120);
  }
}
