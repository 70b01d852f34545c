package io.tideline.core.scheduling;

import io.tideline.core.cluster.state.ClusterState;
import io.tideline.core.kernel.Inbox;
import io.tideline.core.kernel.Table;
import java.util.Objects;

/**
 * Everything the placement kernel knows of its cluster, immutable: the cluster itself (the one
 * fold, {@link ClusterState}) and placement's own bookkeeping — open preemption requests,
 * per-job queue marks, forecast slots, jobs being evicted, the clock and gates — plus the inputs
 * waiting for the next tick. The queue itself is derived from these on every cycle, so a restore
 * reproduces it exactly.
 *
 * @param cluster nodes, jobs, verdicts, facts and the allocation ledger
 * @param pending preemption requests by subject
 * @param queue per-job marks
 * @param forecasts forecast slots by start (epoch millis as text)
 * @param evicting jobs being evicted on a preemption decision
 * @param named jobs quota's open reclaims name, by {@link ReclaimNamed#key}
 * @param parked reclaim-triggered answers of preemption that name a job no open reclaim names
 *     (yet), by decision id: re-checked every tick until named or expired
 * @param meta clock, gates, migration window
 * @param inbox inputs waiting for the next tick
 */
public record PlacementState(ClusterState cluster, Table<PendingRequest> pending,
    Table<QueueMark> queue, Table<SlotWindow> forecasts, Table<Evicting> evicting,
    Table<ReclaimNamed> named, Table<PlacementInput.PreemptionAnswer> parked,
    PlacementMeta meta, Inbox<PlacementInput> inbox) {

  /** Table names (the store's). */
  public static final String PENDING = "pending";
  public static final String QUEUE = "queue";
  public static final String FORECASTS = "forecasts";
  public static final String EVICTING = "evicting";
  public static final String NAMED = "reclaim-named";
  public static final String PARKED = "parked-answers";
  /** The entity of {@link #meta} and the ledger version. */
  public static final String META = "meta";

  public PlacementState {
    Objects.requireNonNull(cluster, "cluster");
    Objects.requireNonNull(pending, "pending");
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(forecasts, "forecasts");
    Objects.requireNonNull(evicting, "evicting");
    Objects.requireNonNull(named, "named");
    Objects.requireNonNull(parked, "parked");
    Objects.requireNonNull(meta, "meta");
    Objects.requireNonNull(inbox, "inbox");
  }

  /** A ledger that knows nothing yet. */
  public static PlacementState empty() {
    return new PlacementState(ClusterState.empty(), Table.empty(PENDING), Table.empty(QUEUE),
        Table.empty(FORECASTS), Table.empty(EVICTING), Table.empty(NAMED), Table.empty(PARKED),
        PlacementMeta.START, Inbox.empty());
  }

  /** This state with another inbox. */
  public PlacementState withInbox(Inbox<PlacementInput> i) {
    return new PlacementState(cluster, pending, queue, forecasts, evicting, named, parked, meta,
        i);
  }
}
