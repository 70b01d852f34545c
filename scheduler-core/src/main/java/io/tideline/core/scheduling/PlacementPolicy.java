package io.tideline.core.scheduling;

import io.tideline.core.fragmentation.DefragConfig;
import io.tideline.core.fragmentation.FragmentationReporting;
import io.tideline.core.placement.PlacementConfig;
import io.tideline.core.slots.SlotClass;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Everything the placement kernel decides with, as one immutable value. Every number of the
 * requirements is a documented default ({@link #defaults}); placement-svc maps its typed
 * configuration onto this, the twin builds it for each policy it compares.
 *
 * @param cluster the cluster this ledger is the single writer of
 * @param policyVersion written into every decision (O2: which policy decided)
 * @param placement T1/T5 placement tunables (the {@code Placer}'s)
 * @param maxFailuresPerLane Q6 backfill depth: jobs of one lane that may fail in one pass before
 *     the lane stops for that cycle (a blocked lane never blocks the others). Default 8
 * @param maxPreemptionRequestsPerCycle P5: new preemption requests one cycle may send (a rise
 *     of many instances asks in bounded batches). Default 4
 * @param defrag T3/T4 defragmentation tunables
 * @param activeDefragInterval T3: least time between two active defragmentation rounds.
 *     Default 15 min
 * @param passiveDefragInterval T3: least time between two passive plans (the plan scans every
 *     node per target: the cycle's most expensive call). Default 5 min
 * @param defaultSlotClass F4: slot class until {@code forecast.slots} names one (FLAT: no active
 *     defragmentation). Default FLAT
 * @param evictionGraceSeconds P3/P4: seconds an evicted job gets to checkpoint. Default 120
 * @param fragmentationReporting T2 events: when a report is published
 * @param maxInputLead an input timed more than this after the clock is refused (event time is
 *     data, and a far-future time must never wait for, or move, anyone's clock). Default 1 day
 *     ({@code Inbox.MAX_INPUT_LEAD}, the same for every kernel)
 * @param defaultExpectedWait P5: the wait a preemption avoids when the declared durations of the
 *     running jobs do not tell. Default 30 min
 * @param maxExpectedWait P5: cap on the estimated wait a request carries. Default 2 h
 * @param rights W4: who may ask for preemption (QUOTA: quota's grant, the rule; EVERY_JOB and
 *     NONE: the naive and no-preemption baselines of the twin)
 * @param inferencePartition the hard-split baseline's inference nodes: online inference runs
 *     only there, everything else only elsewhere; empty (the rule): no partition, Q1
 * @param positionTolerance P7: a queue position is republished when its estimated start moves
 *     by at least this much (or the position changes). Default 1 min
 * @param topologyAware T1: placement sees the switch domains (the rule); false — the twin's
 *     topology-blind baseline — flattens every node's switch path to one switch, so only the
 *     placer's best fit by node remains
 * @param reclaimNaming ADR 0029: how long quota's naming of a job to reclaim holds, and how long
 *     an answer naming a job quota did not (yet) name waits for quota's reclaim
 */
public record PlacementPolicy(String cluster, String policyVersion, PlacementConfig placement,
    int maxFailuresPerLane, int maxPreemptionRequestsPerCycle, DefragConfig defrag,
    Duration activeDefragInterval, Duration passiveDefragInterval, SlotClass defaultSlotClass,
    long evictionGraceSeconds, FragmentationReporting.Config fragmentationReporting,
    Duration maxInputLead, Duration defaultExpectedWait, Duration maxExpectedWait,
    Rights rights, SortedSet<String> inferencePartition, Duration positionTolerance,
    boolean topologyAware, ReclaimNaming reclaimNaming) {

  /**
   * ADR 0029: an eviction of a reclaim-triggered answer follows only a reclaim quota named.
   *
   * @param ttl a job quota named stays named this long after quota's reclaim (a GUARANTEE is
   *     re-requested every 5 min by default, renewing it). Default 15 min
   * @param unnamedWait preemption's answer and quota's reclaim travel on different topics: an
   *     answer naming a job no open reclaim names waits this long after its decision time for the
   *     reclaim, re-checked every tick, and is refused after. Default 2 min
   */
  public record ReclaimNaming(Duration ttl, Duration unnamedWait) {
    /** The documented defaults. */
    public static final ReclaimNaming DEFAULTS = new ReclaimNaming(Duration.ofMinutes(15),
        Duration.ofMinutes(2));

    public ReclaimNaming {
      Objects.requireNonNull(ttl, "ttl");
      Objects.requireNonNull(unnamedWait, "unnamedWait");
      if (ttl.isNegative() || ttl.isZero()) {
        throw new IllegalArgumentException("reclaim naming ttl must be positive");
      }
      if (unnamedWait.isNegative()) {
        throw new IllegalArgumentException("unnamed answer wait must not be negative");
      }
    }
  }

  /** W4: who may ask for preemption. */
  public enum Rights {
    /** Jobs quota granted the right to (W4: online inference, critical, configured levels). */
    QUOTA,
    /** Every job (the twin's naive-preemption baseline). */
    EVERY_JOB,
    /** Nobody (the twin's hard-split baseline). */
    NONE
  }

  public PlacementPolicy {
    Objects.requireNonNull(cluster, "cluster");
    Objects.requireNonNull(policyVersion, "policyVersion");
    Objects.requireNonNull(placement, "placement");
    Objects.requireNonNull(defrag, "defrag");
    Objects.requireNonNull(activeDefragInterval, "activeDefragInterval");
    Objects.requireNonNull(passiveDefragInterval, "passiveDefragInterval");
    Objects.requireNonNull(defaultSlotClass, "defaultSlotClass");
    Objects.requireNonNull(fragmentationReporting, "fragmentationReporting");
    Objects.requireNonNull(maxInputLead, "maxInputLead");
    Objects.requireNonNull(defaultExpectedWait, "defaultExpectedWait");
    Objects.requireNonNull(maxExpectedWait, "maxExpectedWait");
    Objects.requireNonNull(rights, "rights");
    Objects.requireNonNull(positionTolerance, "positionTolerance");
    Objects.requireNonNull(reclaimNaming, "reclaimNaming");
    inferencePartition = java.util.Collections.unmodifiableSortedSet(
        new TreeSet<>(inferencePartition == null ? Set.of() : inferencePartition));
    if (maxFailuresPerLane < 1) {
      throw new IllegalArgumentException("maxFailuresPerLane must be at least 1");
    }
    if (maxPreemptionRequestsPerCycle < 0) {
      throw new IllegalArgumentException("maxPreemptionRequestsPerCycle must not be negative");
    }
  }

  /** The documented defaults for {@code cluster}. */
  public static PlacementPolicy defaults(String cluster) {
    return new PlacementPolicy(cluster, "placement-2", PlacementConfig.DEFAULTS, 8, 4,
        DefragConfig.DEFAULTS, Duration.ofMinutes(15), Duration.ofMinutes(5), SlotClass.FLAT,
        120, FragmentationReporting.Config.DEFAULTS, io.tideline.core.kernel.Inbox.MAX_INPUT_LEAD,
        Duration.ofMinutes(30), Duration.ofHours(2), Rights.QUOTA, new TreeSet<>(),
        Duration.ofMinutes(1), true, ReclaimNaming.DEFAULTS);
  }

  /** This policy with other values for the twin's baselines. */
  public PlacementPolicy with(Rights r, SortedSet<String> partition, DefragConfig d,
      PlacementConfig p) {
    return new PlacementPolicy(cluster, policyVersion, p, maxFailuresPerLane,
        maxPreemptionRequestsPerCycle, d, activeDefragInterval, passiveDefragInterval,
        defaultSlotClass, evictionGraceSeconds, fragmentationReporting, maxInputLead,
        defaultExpectedWait, maxExpectedWait, r, partition, positionTolerance, topologyAware,
        reclaimNaming);
  }

  /** This policy under another version name (O2: which rules decided). */
  public PlacementPolicy withPolicyVersion(String version) {
    return new PlacementPolicy(cluster, version, placement, maxFailuresPerLane,
        maxPreemptionRequestsPerCycle, defrag, activeDefragInterval, passiveDefragInterval,
        defaultSlotClass, evictionGraceSeconds, fragmentationReporting, maxInputLead,
        defaultExpectedWait, maxExpectedWait, rights, inferencePartition, positionTolerance,
        topologyAware, reclaimNaming);
  }

  /** This policy with or without sight of the switch domains (the topology-blind baseline). */
  public PlacementPolicy withTopologyAware(boolean aware) {
    return new PlacementPolicy(cluster, policyVersion, placement, maxFailuresPerLane,
        maxPreemptionRequestsPerCycle, defrag, activeDefragInterval, passiveDefragInterval,
        defaultSlotClass, evictionGraceSeconds, fragmentationReporting, maxInputLead,
        defaultExpectedWait, maxExpectedWait, rights, inferencePartition, positionTolerance,
        aware, reclaimNaming);
  }

  /** This policy with other defragmentation tunables. */
  public PlacementPolicy withDefrag(DefragConfig d) {
    return with(rights, inferencePartition, d, placement);
  }

  /** This policy with another slot class assumed until a forecast names one. */
  public PlacementPolicy withDefaultSlotClass(SlotClass slot) {
    return new PlacementPolicy(cluster, policyVersion, placement, maxFailuresPerLane,
        maxPreemptionRequestsPerCycle, defrag, activeDefragInterval, passiveDefragInterval, slot,
        evictionGraceSeconds, fragmentationReporting, maxInputLead, defaultExpectedWait,
        maxExpectedWait, rights, inferencePartition, positionTolerance,
        topologyAware, reclaimNaming);
  }

  /** This policy with other reclaim-naming bounds. */
  public PlacementPolicy withReclaimNaming(ReclaimNaming n) {
    return new PlacementPolicy(cluster, policyVersion, placement, maxFailuresPerLane,
        maxPreemptionRequestsPerCycle, defrag, activeDefragInterval, passiveDefragInterval,
        defaultSlotClass, evictionGraceSeconds, fragmentationReporting, maxInputLead,
        defaultExpectedWait, maxExpectedWait, rights, inferencePartition, positionTolerance,
        topologyAware, n);
  }

  /** Whether the hard-split baseline partitions the fleet. */
  public boolean partitioned() {
    return !inferencePartition.isEmpty();
  }
}
