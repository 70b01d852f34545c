package io.tideline.notifier.compose;

/**
 * The facts of one victim's preemption, read from the decision and its rule trace (P7): who took
 * the room and with what right, the score ratio, cost against gain, and protection. Plain data so
 * that wording in any language is a separate, testable step ({@link Wording}).
 *
 * @param victimJobId the preempted job
 * @param preemptorJobId the job the room was made for
 * @param preemptorRight why the preemptor may preempt: a workload class name (e.g.
 *     {@code ONLINE_INFERENCE}), {@code CRITICAL}, {@code TENANT:<name>}, or null when the trace
 *     does not say
 * @param preemptorScore the preemptor's P1 score
 * @param victimScore the victim's P1 score
 * @param scoreRatio preemptor score over victim score (from the trace when it states it)
 * @param victimCostGpuHours migration cost of evicting this victim (P4)
 * @param totalCostGpuHours migration cost of all victims of the decision (P4)
 * @param gainGpuHours expected gain of the preemption (P5)
 * @param victimCount how many jobs the decision preempted
 * @param protectionDetail the trace's P3 protection detail for the victim, or null when it only
 *     passed silently (its protection had ended)
 * @param policyVersion preemption policy version in force
 */
public record Explanation(
    String victimJobId,
    String preemptorJobId,
    String preemptorRight,
    double preemptorScore,
    double victimScore,
    double scoreRatio,
    double victimCostGpuHours,
    double totalCostGpuHours,
    double gainGpuHours,
    int victimCount,
    String protectionDetail,
    String policyVersion) {}
