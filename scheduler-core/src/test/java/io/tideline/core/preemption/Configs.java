package io.tideline.core.preemption;

import io.tideline.core.model.WorkloadClass;
import java.util.Set;

/** Test builder for {@link PreemptionConfig}: the defaults with a few knobs turned. */
final class Configs {

  private PreemptionConfig c = PreemptionConfig.DEFAULTS;

  static Configs defaults() {
    return new Configs();
  }

  /** Static priorities for online, batch, training and exploratory. */
  Configs priorities(double online, double batch, double training, double exploratory) {
    c = new PreemptionConfig(c.policyVersion(), online, batch, training, exploratory,
        c.criticalMultiplier(), c.runTimeWeightPerHour(), c.gpuHourWeight(),
        c.scoreRatioThreshold(), c.protectionWindow(), c.cooldown(),
        c.classesWithPreemptionRight(), c.tenantsWithPreemptionRight(), c.neverVictimClasses(),
        c.shardParallelFraction(), c.restoreFactor(), c.commRebuildBaseSeconds(),
        c.commRebuildPerExtraNodeSeconds(), c.commRebuildMaxSeconds(), c.cacheFillGbPerSec(),
        c.gainMargin(), c.nearCompletionFactor(), c.maxVictimStateGb(), c.queueBoost(),
        c.sharedPoolFallback());
    return this;
  }

  /** P1 dynamic weights; (0, 0) makes every score its static priority. */
  Configs dynamicWeights(double perRunHour, double perGpuHour) {
    c = new PreemptionConfig(c.policyVersion(), c.onlineInferencePriority(),
        c.batchInferencePriority(), c.trainingPriority(), c.exploratoryTrainingPriority(),
        c.criticalMultiplier(), perRunHour, perGpuHour,
        c.scoreRatioThreshold(), c.protectionWindow(), c.cooldown(),
        c.classesWithPreemptionRight(), c.tenantsWithPreemptionRight(), c.neverVictimClasses(),
        c.shardParallelFraction(), c.restoreFactor(), c.commRebuildBaseSeconds(),
        c.commRebuildPerExtraNodeSeconds(), c.commRebuildMaxSeconds(), c.cacheFillGbPerSec(),
        c.gainMargin(), c.nearCompletionFactor(), c.maxVictimStateGb(), c.queueBoost(),
        c.sharedPoolFallback());
    return this;
  }

  /** W4 business levels: tenants whose jobs may preempt. */
  Configs tenantsWithRight(String... tenants) {
    c = new PreemptionConfig(c.policyVersion(), c.onlineInferencePriority(),
        c.batchInferencePriority(), c.trainingPriority(), c.exploratoryTrainingPriority(),
        c.criticalMultiplier(), c.runTimeWeightPerHour(), c.gpuHourWeight(),
        c.scoreRatioThreshold(), c.protectionWindow(), c.cooldown(),
        c.classesWithPreemptionRight(), Set.of(tenants), c.neverVictimClasses(),
        c.shardParallelFraction(), c.restoreFactor(), c.commRebuildBaseSeconds(),
        c.commRebuildPerExtraNodeSeconds(), c.commRebuildMaxSeconds(), c.cacheFillGbPerSec(),
        c.gainMargin(), c.nearCompletionFactor(), c.maxVictimStateGb(), c.queueBoost(),
        c.sharedPoolFallback());
    return this;
  }

  /** W4 classes with the right to preempt. */
  Configs classesWithRight(Set<WorkloadClass> classes) {
    c = new PreemptionConfig(c.policyVersion(), c.onlineInferencePriority(),
        c.batchInferencePriority(), c.trainingPriority(), c.exploratoryTrainingPriority(),
        c.criticalMultiplier(), c.runTimeWeightPerHour(), c.gpuHourWeight(),
        c.scoreRatioThreshold(), c.protectionWindow(), c.cooldown(),
        classes, c.tenantsWithPreemptionRight(), c.neverVictimClasses(),
        c.shardParallelFraction(), c.restoreFactor(), c.commRebuildBaseSeconds(),
        c.commRebuildPerExtraNodeSeconds(), c.commRebuildMaxSeconds(), c.cacheFillGbPerSec(),
        c.gainMargin(), c.nearCompletionFactor(), c.maxVictimStateGb(), c.queueBoost(),
        c.sharedPoolFallback());
    return this;
  }

  /** P3 protection window after a (re)start. */
  Configs protectionWindow(java.time.Duration window) {
    c = new PreemptionConfig(c.policyVersion(), c.onlineInferencePriority(),
        c.batchInferencePriority(), c.trainingPriority(), c.exploratoryTrainingPriority(),
        c.criticalMultiplier(), c.runTimeWeightPerHour(), c.gpuHourWeight(),
        c.scoreRatioThreshold(), window, c.cooldown(),
        c.classesWithPreemptionRight(), c.tenantsWithPreemptionRight(), c.neverVictimClasses(),
        c.shardParallelFraction(), c.restoreFactor(), c.commRebuildBaseSeconds(),
        c.commRebuildPerExtraNodeSeconds(), c.commRebuildMaxSeconds(), c.cacheFillGbPerSec(),
        c.gainMargin(), c.nearCompletionFactor(), c.maxVictimStateGb(), c.queueBoost(),
        c.sharedPoolFallback());
    return this;
  }

  PreemptionConfig build() {
    return c;
  }
}
