package io.tideline.core.preemption;

import io.tideline.core.model.WorkloadClass;
import java.time.Duration;
import java.util.Set;

/**
 * Every number of the preemption policy (W1, W4, P1–P6), so the rules are public and tunable and
 * no decision code carries a literal. {@link #DEFAULTS} is the documented policy.
 *
 * @param policyVersion stamped on every decision so an audit knows which rules applied (P7, O2);
 *     default {@code "preemption-v1"}
 * @param onlineInferencePriority P1/W1 static priority of online inference; default 10
 * @param batchInferencePriority P1/W1 static priority of batch inference; default 5
 * @param trainingPriority P1/W1 static priority of training; default 2. Also the unit of the gain
 *     weight (P5): an hour of waiting is worth {@code priority / trainingPriority} GPU-hours
 * @param exploratoryTrainingPriority P1/W1 static priority of exploratory training; default 1
 * @param criticalMultiplier W1 "critical jobs configurable": a critical job's static priority (and
 *     its waiting cost, P5) is multiplied by this; default 2
 * @param runTimeWeightPerHour P1 dynamic weight added per hour since the last (re)start; default
 *     0.05
 * @param gpuHourWeight P1 dynamic weight added per GPU-hour consumed; default 0.0005
 * @param scoreRatioThreshold P2 the preemptor's score must be at least this multiple of the
 *     victim's; default 1.5
 * @param protectionWindow P3 a job is never a victim this long after its (re)start; default 15
 *     minutes
 * @param cooldown P3 a job preempted this recently is never a victim again (and quota admits it
 *     only on guaranteed quota); default 30 minutes
 * @param classesWithPreemptionRight W4 classes that may preempt (critical jobs always may);
 *     default {online inference}
 * @param tenantsWithPreemptionRight W4 "configured business levels": tenants (business lines)
 *     whose jobs may preempt; default none
 * @param neverVictimClasses W1 classes never interrupted whatever they declare; default {online
 *     inference}
 * @param shardParallelFraction P4 share of a checkpoint write that parallelises across write
 *     shards (Amdahl): write = size / bandwidth × ((1 − f) + f / shards). Default 0.8, so 8 shards
 *     turn the 40 s single-writer write of 80 GB at 2 GB/s into 40 × (0.2 + 0.1) = 12 s
 * @param restoreFactor P4 restore time as a multiple of write time; default 1.3 (40 s → 52 s)
 * @param commRebuildBaseSeconds P4 collective-communication rebuild for a multi-GPU job on one
 *     node; default 20 s
 * @param commRebuildPerExtraNodeSeconds P4 rebuild growth per additional node; default 2 s
 * @param commRebuildMaxSeconds P4 rebuild ceiling; default 50 s (reached at 16 nodes)
 * @param cacheFillGbPerSec P4 data-cache warm-up rate: a victim with a warm cache pays
 *     {@code dataCacheGb / cacheFillGbPerSec} again after restart; default 2 GB/s
 * @param gainMargin P5 preempt only when gain ≥ cost × this margin ("clearly exceeds"); default 1.5
 * @param nearCompletionFactor P5 a victim whose expected remaining run time is less than this
 *     multiple of its migration wall time is left to finish; default 3
 * @param maxVictimStateGb P5 a victim with more checkpoint state than this is never evicted;
 *     default 1024 GB (≈ a 64B-parameter model with optimizer state)
 * @param queueBoost P6 age credit a victim gets when it re-enters the queue; default 30 minutes
 * @param sharedPoolFallback P6 whether a victim may fall back to the shared pool once its
 *     cooldown ends; default true
 */
public record PreemptionConfig(
    String policyVersion,
    double onlineInferencePriority,
    double batchInferencePriority,
    double trainingPriority,
    double exploratoryTrainingPriority,
    double criticalMultiplier,
    double runTimeWeightPerHour,
    double gpuHourWeight,
    double scoreRatioThreshold,
    Duration protectionWindow,
    Duration cooldown,
    Set<WorkloadClass> classesWithPreemptionRight,
    Set<String> tenantsWithPreemptionRight,
    Set<WorkloadClass> neverVictimClasses,
    double shardParallelFraction,
    double restoreFactor,
    double commRebuildBaseSeconds,
    double commRebuildPerExtraNodeSeconds,
    double commRebuildMaxSeconds,
    double cacheFillGbPerSec,
    double gainMargin,
    double nearCompletionFactor,
    double maxVictimStateGb,
    Duration queueBoost,
    boolean sharedPoolFallback) {

  /** The documented policy. */
  public static final PreemptionConfig DEFAULTS = new PreemptionConfig(
      "preemption-v1",
      10, 5, 2, 1, 2,
      0.05, 0.0005,
      1.5,
      Duration.ofMinutes(15), Duration.ofMinutes(30),
      Set.of(WorkloadClass.ONLINE_INFERENCE), Set.of(), Set.of(WorkloadClass.ONLINE_INFERENCE),
      0.8, 1.3,
      20, 2, 50,
      2.0,
      1.5, 3.0, 1024,
      Duration.ofMinutes(30), true);

  public PreemptionConfig {
    classesWithPreemptionRight = Set.copyOf(classesWithPreemptionRight);
    tenantsWithPreemptionRight = Set.copyOf(tenantsWithPreemptionRight);
    neverVictimClasses = Set.copyOf(neverVictimClasses);
    if (!(scoreRatioThreshold > 0) || !(gainMargin > 0) || !(cacheFillGbPerSec > 0)) {
      throw new IllegalArgumentException("ratio threshold, gain margin and cache rate must be > 0");
    }
    if (shardParallelFraction < 0 || shardParallelFraction > 1) {
      throw new IllegalArgumentException("shardParallelFraction must be in [0, 1]");
    }
  }

  /** The P1 static priority of a class, before the critical multiplier. */
  public double classPriority(WorkloadClass workloadClass) {
    return switch (workloadClass) {
      case ONLINE_INFERENCE -> onlineInferencePriority;
      case BATCH_INFERENCE -> batchInferencePriority;
      case TRAINING -> trainingPriority;
      case EXPLORATORY_TRAINING -> exploratoryTrainingPriority;
    };
  }
}
