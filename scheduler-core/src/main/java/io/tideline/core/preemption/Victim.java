package io.tideline.core.preemption;

/**
 * One job a preemption evicts, with the numbers that justify it and what it gets back, so the
 * owner's notice (P7) and an audit can show the whole reason.
 *
 * @param jobId the victim
 * @param tenant its tenant
 * @param user its owner, to be notified
 * @param score its P1 score at decision time
 * @param cost its P4 migration cost
 * @param compensation its P6 compensation
 */
public record Victim(
    String jobId, String tenant, String user, double score, MigrationCost cost,
    Compensation compensation) {}
