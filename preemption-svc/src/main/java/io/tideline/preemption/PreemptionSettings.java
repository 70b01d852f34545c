package io.tideline.preemption;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.tideline.core.model.WorkloadClass;
import io.tideline.core.placement.PlacementConfig;
import io.tideline.core.preemption.PreemptionConfig;
import io.tideline.core.preemption.kernel.PreemptionPolicy;
import java.time.Duration;
import java.time.LocalTime;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * preemption-svc's policy ({@code tideline.preemption.*}). Every number of REQUIREMENTS.md is a
 * default here, never a literal in code; {@link #policy} turns it into the plain
 * {@link PreemptionPolicy} the topology is built with. The defaults are
 * {@link PreemptionConfig#DEFAULTS}, whose Javadoc gives the formulas.
 */
@ConfigMapping(prefix = "tideline.preemption")
public interface PreemptionSettings {

  /** P7/O2: version stamped on every decision. */
  @WithDefault("preemption-v1")
  String policyVersion();

  /** P1/W1: static priority of online inference. */
  @WithDefault("10")
  double onlineInferencePriority();

  /** P1/W1: static priority of batch inference. */
  @WithDefault("5")
  double batchInferencePriority();

  /** P1/W1: static priority of training (also the unit of the P5 gain weight). */
  @WithDefault("2")
  double trainingPriority();

  /** P1/W1: static priority of exploratory training. */
  @WithDefault("1")
  double exploratoryTrainingPriority();

  /** W1 "critical jobs configurable": multiplier of a critical job's priority. */
  @WithDefault("2")
  double criticalMultiplier();

  /** P1: dynamic weight added per hour since the last (re)start. */
  @WithDefault("0.05")
  double runTimeWeightPerHour();

  /** P1: dynamic weight added per GPU-hour consumed. */
  @WithDefault("0.0005")
  double gpuHourWeight();

  /** P2: the preemptor's score must be at least this multiple of the victim's (1.5×). */
  @WithDefault("1.5")
  double scoreRatioThreshold();

  /** P3: never a victim this long after a (re)start (15 minutes). */
  @WithDefault("PT15M")
  Duration protectionWindow();

  /** P3: never a victim again this long after being preempted (30 minutes). */
  @WithDefault("PT30M")
  Duration cooldown();

  /** W4: classes that may preempt (critical jobs always may). */
  @WithDefault("ONLINE_INFERENCE")
  Set<WorkloadClass> classesWithPreemptionRight();

  /** W4 "configured business levels": tenants whose jobs may preempt; none by default. */
  Optional<List<String>> tenantsWithPreemptionRight();

  /** W1: classes never interrupted, whatever they declare. */
  @WithDefault("ONLINE_INFERENCE")
  Set<WorkloadClass> neverVictimClasses();

  /** P4: share of a checkpoint write that parallelises across write shards (80 GB: 40 s → 12 s). */
  @WithDefault("0.8")
  double shardParallelFraction();

  /** P4: restore time as a multiple of write time (≈ 1.3). */
  @WithDefault("1.3")
  double restoreFactor();

  /** P4: collective-communication rebuild on one node (20 s). */
  @WithDefault("20")
  double commRebuildBaseSeconds();

  /** P4: rebuild growth per additional node. */
  @WithDefault("2")
  double commRebuildPerExtraNodeSeconds();

  /** P4: rebuild ceiling (50 s). */
  @WithDefault("50")
  double commRebuildMaxSeconds();

  /** P4: data-cache warm-up rate in GB/s. */
  @WithDefault("2.0")
  double cacheFillGbPerSec();

  /** P5: preempt only when gain ≥ cost × this margin ("clearly exceeds"). */
  @WithDefault("1.5")
  double gainMargin();

  /** P5: leave a victim whose remaining time is under this multiple of its migration time. */
  @WithDefault("3.0")
  double nearCompletionFactor();

  /** P5 "huge state": never evict a victim with more checkpoint state than this (GB). */
  @WithDefault("1024")
  double maxVictimStateGb();

  /** P6: age credit a victim gets when it re-enters the queue (written in minutes). */
  @WithDefault("PT30M")
  Duration queueBoost();

  /** P6: whether a victim may fall back to the shared pool after its cooldown. */
  @WithDefault("true")
  boolean sharedPoolFallback();

  /** P5: the wait a preemption avoids when nothing better is known (the gain's hours). */
  @WithDefault("PT30M")
  Duration assumedWait();

  /** F2/P5: a starting reservation is worth this many hours of each GPU it lacks. */
  @WithDefault("1.0")
  double reservationValueHours();

  /** P6/F4: start (UTC) of the nightly trough, for the off-peak retry hint (00:00 deep trough). */
  @WithDefault("00:00")
  LocalTime offPeakStart();

  /** O2: refused candidates listed one by one in a trace; the rest are counted per rule. */
  @WithDefault("500")
  int traceCandidatesMax();

  /** T1: placement's cross-switch slowdown, so the feasibility probe places as placement does. */
  @WithDefault("0.4")
  double crossSwitchSlowdown();

  /** The policy as a plain value for the topology factory. */
  /**
   * A request made on a ledger version the view has not folded yet waits for it at most this
   * long, then is answered on the view as it is.
   */
  @WithDefault("PT1M")
  Duration maxViewLag();

  /**
   * Inputs timed more than this after the cluster clock are refused (time is data); the same for
   * every kernel ({@code Inbox.MAX_INPUT_LEAD}), so inputs wait through a clock outage.
   */
  @WithDefault("P1D")
  Duration maxInputLead();

  default PreemptionPolicy policy(String defaultCluster) {
    PreemptionConfig rules = new PreemptionConfig(policyVersion(), onlineInferencePriority(),
        batchInferencePriority(), trainingPriority(), exploratoryTrainingPriority(),
        criticalMultiplier(), runTimeWeightPerHour(), gpuHourWeight(), scoreRatioThreshold(),
        protectionWindow(), cooldown(), classesWithPreemptionRight(),
        Set.copyOf(tenantsWithPreemptionRight().orElse(List.of())), neverVictimClasses(),
        shardParallelFraction(), restoreFactor(), commRebuildBaseSeconds(),
        commRebuildPerExtraNodeSeconds(), commRebuildMaxSeconds(), cacheFillGbPerSec(),
        gainMargin(), nearCompletionFactor(), maxVictimStateGb(), queueBoost(),
        sharedPoolFallback());
    return new PreemptionPolicy(defaultCluster, rules, new PlacementConfig(crossSwitchSlowdown()),
        assumedWait(), reservationValueHours(), offPeakStart(), traceCandidatesMax(),
        maxViewLag(), maxInputLead(), PreemptionPolicy.Mode.PLANNER);
  }
}
