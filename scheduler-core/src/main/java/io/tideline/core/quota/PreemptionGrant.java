package io.tideline.core.quota;

/**
 * What a node's jobs are entitled to preempt with (requirement W4: the right to preempt is restricted
 * to online inference, critical jobs and configured business levels). Granted in the quota
 * definition, never taken from the submitter's word.
 */
public enum PreemptionGrant {
  /** Online inference jobs of this node may preempt. */
  ONLINE_INFERENCE,
  /** Jobs marked critical (release/evaluation) of this node may preempt. */
  CRITICAL_JOBS,
  /** A configured business level: any job of this node may preempt. */
  BUSINESS_LEVEL
}
