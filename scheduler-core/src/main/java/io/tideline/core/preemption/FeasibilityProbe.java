package io.tideline.core.preemption;

import java.util.Set;

/**
 * The seam to placement: would the preemptor's shape and topology fit if these jobs left? The
 * caller (placement, or the simulator) supplies it bound to its current ledger, so preemption never
 * guesses at placement rules and only proposes evictions that free a placement actually feasible.
 *
 * <p>Contract: pure for the duration of one decision, and monotone — evicting a superset never
 * makes a feasible placement infeasible. The victim search relies on monotonicity to binary-search
 * and to prove every victim necessary; even with a non-monotone probe, the set it returns is one
 * the probe answered feasible. The set passed in is a read-only view, iterated in a deterministic
 * order; implementations should iterate rather than call {@code contains}.
 */
@FunctionalInterface
public interface FeasibilityProbe {

  /**
   * Whether {@code preemptor} could be placed if every job in {@code evictedJobIds} released its
   * GPUs (and nothing else changed).
   */
  boolean feasibleWithout(PreemptionRequest preemptor, Set<String> evictedJobIds);
}
