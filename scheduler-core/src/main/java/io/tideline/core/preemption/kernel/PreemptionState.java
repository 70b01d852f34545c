package io.tideline.core.preemption.kernel;

import io.tideline.core.cluster.state.ClusterState;
import io.tideline.core.kernel.Inbox;
import io.tideline.core.kernel.Table;
import java.time.Instant;
import java.util.Objects;

/**
 * Everything the preemption kernel knows, immutable: the cluster as the one fold of inventory,
 * submissions, verdicts, lifecycle and placement's ledger changes ({@link ClusterState} — the
 * same fold placement keeps), requests waiting for the view to catch up with the ledger version
 * they were made on, the clock, and the inputs waiting for the next tick.
 *
 * @param cluster the cluster as placement's ledger left it, up to the version folded
 * @param deferred requests by id, waiting for the view
 * @param now time of the last tick, or {@code null}
 * @param inbox inputs waiting for the next tick
 */
public record PreemptionState(ClusterState cluster, Table<PreemptionInput.Request> deferred,
    Instant now, Inbox<PreemptionInput> inbox) {

  /** Table names. */
  public static final String DEFERRED = "deferred";
  public static final String META = "meta";

  public PreemptionState {
    Objects.requireNonNull(cluster, "cluster");
    Objects.requireNonNull(deferred, "deferred");
    Objects.requireNonNull(inbox, "inbox");
  }

  public static PreemptionState empty() {
    return new PreemptionState(ClusterState.empty(), Table.empty(DEFERRED), null, Inbox.empty());
  }
}
