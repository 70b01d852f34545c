package io.tideline.core.preemption;

/**
 * A {@link FeasibilityProbe} that can also answer incrementally: evict one job at a time, put one
 * back, and ask whether the preemptor fits now. The victim search then walks the candidates once
 * (evict cheapest first until feasible, then try putting each back, most expensive first) instead
 * of re-probing whole prefixes, so one decision costs O(candidates) updates rather than
 * O(log k) full probes per victim. Both paths choose the same set (see
 * {@link PreemptionPlanner}); a probe that is not incremental keeps the prefix search.
 *
 * <p>Same contract as the plain probe: monotone, pure for the duration of one decision.
 */
public interface IncrementalProbe extends FeasibilityProbe {

  /** A fresh session for {@code preemptor} in which nobody is evicted yet. */
  Session open(PreemptionRequest preemptor);

  /** One decision's mutable what-if: which jobs are evicted so far. */
  interface Session {

    /** Adds {@code jobId} to the evicted set (a job not in the snapshot changes nothing). */
    void evict(String jobId);

    /** Removes {@code jobId} from the evicted set again. */
    void restore(String jobId);

    /** Whether the preemptor fits with the current evicted set. */
    boolean feasible();
  }
}
