package io.tideline.placement;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.tideline.core.cluster.GpuModelNames;
import io.tideline.core.fragmentation.DefragConfig;
import io.tideline.core.fragmentation.FragmentationReporting;
import io.tideline.core.placement.NodeScoring;
import io.tideline.core.placement.PlacementConfig;
import io.tideline.core.slots.SlotClass;
import io.tideline.core.scheduling.PlacementPolicy;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * placement-svc's policy ({@code tideline.placement.*}). Every number of REQUIREMENTS.md is a
 * default here, never a literal in code; {@link #policy} turns it into the plain
 * {@link LedgerPolicy} the topology is built with.
 */
@ConfigMapping(prefix = "tideline.placement")
public interface PlacementSettings {

  /** Version string written into every decision (O2: which policy decided). */
  @WithDefault("placement-2")
  String policyVersion();

  /** T1: share of gradient-sync bandwidth lost per switch tier crossed (30–50% slower). */
  @WithDefault("0.4")
  double crossSwitchSlowdown();

  /**
   * T2, ADR 0037/0038: how single-node placements rank nodes. {@code BEST_FIT} (default: fewest
   * usable, then fewest idle GPUs) or {@code FRAGMENTATION} (least growth of expected
   * fragmentation under the live mix of the jobs running and waiting, best fit on ties; fewer
   * unallocated GPUs in the placement study, at a higher cost per decision, see
   * docs/performance.md).
   */
  @WithDefault("BEST_FIT")
  NodeScoring.Rule nodeScoring();

  /**
   * Q6 backfill depth: queued jobs of one lane that may fail to place in one pass before the
   * lane stops for that pass. Bounds the work per event; a blocked lane never blocks the others.
   */
  @WithDefault("8")
  int maxFailuresPerLane();

  /** T4: largest fraction of the cluster's GPUs migrated per period (3%). */
  @WithDefault("0.03")
  double defragMaxMigratedFraction();

  /** T4: the rate-limit window. */
  @WithDefault("PT1H")
  Duration defragPeriod();

  /** T3: slot classes in which active defragmentation runs (never PEAK, whatever this says). */
  @WithDefault("TROUGH,DEEP_TROUGH")
  Set<SlotClass> defragActiveSlots();

  /** T3: largest number of migrations one defragmentation plan may propose. */
  @WithDefault("64")
  int defragMaxMigrationsPerPlan();

  /** T3: least logical time between two active defragmentation rounds. */
  @WithDefault("PT15M")
  Duration activeDefragInterval();

  /** F4: slot class assumed until {@code forecast.slots} says otherwise (FLAT: no active defrag). */
  @WithDefault("FLAT")
  SlotClass defaultSlotClass();

  /** P3/P4: seconds an evicted job gets to checkpoint before it is stopped. */
  @WithDefault("120")
  long evictionGraceSeconds();

  /**
   * T5: GPU model aliases as {@code name=family} entries, for names the built-in rule does not
   * cover (a job's {@code H100} already matches the inventory's {@code NVIDIA H100 80GB HBM3}: the
   * family is the first word after the vendor, cut at '-'; see {@code GpuModelNames}). Default:
   * none.
   */
  Optional<List<String>> gpuModelAliases();

  /** T2 events: a move of the cluster fragmentation figure by this much is published at once. */
  @WithDefault("0.05")
  double fragmentationReportMinChange();

  /** T2 events: otherwise the figure is published once per this much event time (one slot). */
  @WithDefault("PT15M")
  Duration fragmentationReportInterval();

  /** P5: new preemption requests one cycle may send. */
  @WithDefault("4")
  int maxPreemptionRequestsPerCycle();

  /** T3: least time between two passive defragmentation plans. */
  @WithDefault("PT5M")
  Duration passiveDefragInterval();

  /**
   * Inputs timed more than this after the cluster clock are refused (time is data); the same for
   * every kernel ({@code Inbox.MAX_INPUT_LEAD}), so inputs wait through a clock outage.
   */
  @WithDefault("P1D")
  Duration maxInputLead();

  /** P5: the wait a preemption avoids when the running jobs' declared durations do not tell. */
  @WithDefault("PT30M")
  Duration defaultExpectedWait();

  /** P5: cap on the estimated wait a preemption request carries. */
  @WithDefault("PT2H")
  Duration maxExpectedWait();

  /** P7: a queue position is republished when its estimated start moves by this much. */
  @WithDefault("PT1M")
  Duration positionTolerance();

  /**
   * ADR 0029: a job quota named in a reclaim stays named this long (quota re-requests a
   * GUARANTEE every 5 min by default, renewing it).
   */
  @WithDefault("PT15M")
  Duration reclaimNamedTtl();

  /**
   * ADR 0029: a reclaim-triggered decision of preemption naming a job quota has not (yet) named
   * waits this long after its decision time for quota's reclaim, then is refused.
   */
  @WithDefault("PT2M")
  Duration unnamedReclaimAnswerWait();

  /** The kernel's policy as a plain value for the topology factory. */
  default PlacementPolicy policy(String cluster) {
    return new PlacementPolicy(cluster, policyVersion(),
        new PlacementConfig(crossSwitchSlowdown(),
            GpuModelNames.parse(gpuModelAliases().orElse(List.of())),
            nodeScoring() == NodeScoring.Rule.FRAGMENTATION ? NodeScoring.live()
                : NodeScoring.DEFAULTS), maxFailuresPerLane(),
        maxPreemptionRequestsPerCycle(),
        new DefragConfig(defragMaxMigratedFraction(), defragPeriod(),
            defragActiveSlots().isEmpty() ? EnumSet.noneOf(SlotClass.class)
                : EnumSet.copyOf(defragActiveSlots()), defragMaxMigrationsPerPlan()),
        activeDefragInterval(), passiveDefragInterval(), defaultSlotClass(),
        evictionGraceSeconds(), new FragmentationReporting.Config(fragmentationReportMinChange(),
            fragmentationReportInterval()), maxInputLead(), defaultExpectedWait(),
        maxExpectedWait(), PlacementPolicy.Rights.QUOTA, new java.util.TreeSet<>(),
        positionTolerance(), true,
        new PlacementPolicy.ReclaimNaming(reclaimNamedTtl(), unnamedReclaimAnswerWait()));
  }
}
