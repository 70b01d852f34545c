package io.tideline.core.placement;

/**
 * Why a job could not be placed now. The distinction drives what happens next: capacity shortage
 * waits or asks preemption, fragmentation asks the passive defragmenter (T3), a reservation hold
 * waits for the release (F2/F3), a shape or model problem goes back to the submitter.
 */
public enum UnplaceableReason {
  /** The request cannot be laid out on this fleet at all (e.g. a worker larger than any node). */
  INVALID_SHAPE,
  /** No node carries an allowed GPU model (T5). */
  NO_MATCHING_GPU_MODEL,
  /** Fewer eligible free GPUs than the job needs. */
  INSUFFICIENT_CAPACITY,
  /** Enough free GPUs only if reserved ones were counted (F2: held for an online service). */
  HELD_BY_RESERVATION,
  /** Enough eligible idle GPUs in total, but not in the shape the job needs (T2). */
  FRAGMENTED
}
