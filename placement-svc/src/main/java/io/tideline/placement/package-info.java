/**
 * Placement: the queue and the allocation ledger of each cluster (issue #6) — lanes, gang and
 * topology-aware placement, reservations honoured, preemption hand-off, fragmentation index,
 * passive and active defragmentation. A thin adapter: every decision comes from
 * {@code scheduler-core} ({@code Placer}, {@code QueueOrder}, the defragmentation planners),
 * with {@code now} taken from event time.
 *
 * <h2>Single writer, crash safe</h2>
 * {@link io.tideline.placement.ledger.PlacementTopology} is a Kafka Streams topology run with
 * {@code exactly_once_v2}. Inputs ({@code cluster.inventory}, {@code jobs.submitted},
 * {@code quota.verdicts}, {@code jobs.lifecycle}, {@code capacity.reservations},
 * {@code cluster.clock}, {@code forecast.slots}, {@code preemption.decisions}) are decoded (bad
 * records go to {@code <topic>.dlq} with the reason), re-keyed to their cluster, written to the
 * retained log {@code placement.ledger.inputs} (the recorded order an audit replays, ADR 0005)
 * and handled from it by one ledger task per cluster, whose state lives in a changelogged store. Store, outputs and input
 * offsets commit in one transaction, so a restart — even after SIGKILL, even with the local state
 * wiped — rebuilds exactly the committed ledger, version included, and the core's
 * {@code ClusterSnapshot} refuses any overbooking: no GPU is allocated twice.
 *
 * <h2>Lanes (Q6) and the total queue order</h2>
 * A job waits once it is submitted and admitted by quota (verdict GUARANTEED or SHARED; QUEUED
 * and REJECTED jobs are quota's to hold). It waits in the lane of its class: online inference in
 * INFERENCE, batch inference in BATCH, training and exploratory training in TRAINING. Inside a
 * lane, jobs are ordered by {@link io.tideline.core.placement.QueueOrder}: workload class (W1
 * tolerance), quota verdict rank (GUARANTEED 0, SHARED 1), fair-share usage (Q4, lower first),
 * compensation boost (P6, a job preempted earlier gets one level per preemption, higher first),
 * submission time, job id — a total order, so replays decide identically (O2). The lanes are
 * offered in the same order, compared by their heads (so INFERENCE, then BATCH, then TRAINING),
 * which makes the whole queue one total order too. Lanes are isolated: each lane stops a pass
 * after {@code tideline.placement.max-failures-per-lane} refusals (default 8, backfilling past
 * blocked jobs up to that depth), so a blocked training gang never holds up inference.
 *
 * <h2>Outputs</h2>
 * {@code placement.decisions} (key cluster): PLACED with the GPU assignments, domain level,
 * cross-domain flag, score, ledger version after the decision, policy version and rule trace;
 * QUEUED (first refusal, with the trace); PREEMPTION_REQUESTED; HELD_FOR_PREEMPTOR; RELEASED;
 * MIGRATED. {@code placement.queue} (key job, compacted): position in the lane, an estimated
 * start from the running jobs' declared durations and the basis of that estimate; a tombstone
 * when the job leaves the queue. {@code evictions}: PREEMPT for victims of an applied preemption
 * plan, MIGRATE (with the target) for defragmentation. {@code preemption.requests}: a job with
 * the preemption right (granted by quota) that cannot be placed, with its shape and the ledger
 * version; asked once, and again only after a refusal once the ledger has changed.
 *
 * <h2>Nodes that leave</h2>
 * A {@code LEFT} node is gone (a {@code DRAINED} one is cordoned while its work finishes): it
 * leaves the topology, every job with a GPU on it is RELEASED ("node left") and queued again with
 * that reason, holds on its GPUs are dropped and reservations lose them.
 *
 * <h2>Preemption and holds</h2>
 * A preemption plan is applied only if it answers the open request, the preemptor still waits,
 * every victim still runs and — when the ledger moved on since the plan's version — the
 * preemptor still fits once the victims are gone; otherwise it is recorded as stale and not
 * applied. Applied: victims get PREEMPT evictions and the GPUs the preemptor will use are held (a
 * reservation nobody may use) until the victims report PREEMPTED, then bound to the preemptor.
 * Migrations hold their source GPUs the same way until the migrant reports RESUMED/STARTED.
 * Two more answers come from preemption-svc (ADR 0006): at a reservation's start placement asks
 * (trigger RESERVATION_START, naming the jobs on the reserved GPUs) and, once the answer is still
 * valid, evicts those victims and keeps the freed reserved GPUs for the online service; an
 * IDLE_RECLAIM decision (quota's Q7 reclaim) evicts the idle job and returns its GPUs to the pool
 * without queuing it again.
 *
 * <h2>Fragmentation (T2–T4)</h2>
 * Per-node and cluster fragmentation indexes are Micrometer gauges
 * ({@link io.tideline.placement.ledger.PlacementMeters}), refreshed on clock ticks against the
 * demanded shapes (queued and running jobs), and {@code FragmentationReport} events on
 * {@code placement.fragmentation} when the core's {@code FragmentationReporting} says one is due
 * (first, a move of the cluster figure by 0.05, or every 15 minutes of event time); definition in
 * {@code docs/design/fragmentation.md}. A job refused as FRAGMENTED triggers the passive
 * planner (one per pass); clock ticks run the active planner in the configured trough slots
 * (slot class from {@code forecast.slots} when a forecast covers now, else
 * {@code tideline.placement.default-slot-class}), never at PEAK, within the 3%-per-hour
 * migration budget.
 */
package io.tideline.placement;
