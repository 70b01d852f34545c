/**
 * Three-tier quotas (requirements Q1–Q7, W4, P3 cooldown admission): fleet segments, the
 * organisation → business line → team → queue hierarchy, the usage ledger and its pure
 * transitions, borrowing from the shared pool, fair-share ranking, guarantee review, idle
 * reclamation and admission verdicts.
 *
 * <p>Semantics chosen here (the quota service and simulator rely on them):
 *
 * <ol>
 *   <li>Guarantees are held by queues (one per team and lane, Q6). An inner node's floor is the
 *       budget its children's floors subdivide; any part it does not subdivide belongs to the pool.
 *   <li>Borrowable capacity = (fleet − Σ queue floors) + idle floors their owners lend, within every
 *       node's lending limit. Borrowing is capped per node over its whole subtree (Q3).
 *   <li>A job is GUARANTEED only if it fits its queue's idle floor; otherwise it takes what is left of
 *       the floor and borrows the rest, and the whole job is SHARED (preemptible: a gang cannot lose
 *       half its GPUs). A job declared non-preemptible (W4) or in its P3 cooldown never borrows.
 *   <li>A floor is kept whatever others do (Q2): a guaranteed job whose floor is lent out names the
 *       borrowers to reclaim, biggest borrowing queue first, its youngest job first.
 *   <li>Waiting queues are served below-guarantee first, then by decayed usage per weight (Q3, Q4).
 * </ol>
 *
 * <p>Everything here is a pure function of explicit inputs and {@code now}. GPU quantities are
 * {@code double} (a fractional inference instance counts by its share) snapped to a micro-GPU grid
 * in the ledger so long event sequences never drift.
 */
package io.tideline.core.quota;
