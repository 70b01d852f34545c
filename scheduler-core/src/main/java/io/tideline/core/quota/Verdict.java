package io.tideline.core.quota;

/** The four admission outcomes of a submitted job. */
public enum Verdict {
  /** Runs counted against its queue's guarantee: non-preemptible. */
  GUARANTEED,
  /** Runs (at least partly) on borrowed shared-pool capacity: preemptible. */
  SHARED,
  /** Cannot run now; the verdict says why and what would unblock it. */
  QUEUED,
  /** Will never run as submitted (unknown tenant/queue, an entitlement it does not hold). */
  REJECTED
}
