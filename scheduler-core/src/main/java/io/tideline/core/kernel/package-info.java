/**
 * The shape every Tideline scheduling kernel shares: a pure state machine
 * {@code step(now, state, input) → (state, effects)} driven by a cluster's clock.
 *
 * <h2>The cycle contract (ADR 0008)</h2>
 * <ol>
 *   <li><b>Decide only on a tick.</b> A kernel makes decisions only when a {@link
 *       io.tideline.core.kernel.Tick} arrives. Every other input (a fact such as a submission or a
 *       lifecycle event, or a request such as a preemption decision to apply) waits in the
 *       kernel's {@link io.tideline.core.kernel.Inbox}.</li>
 *   <li><b>Apply what happened before the tick, in canonical order.</b> At a tick at {@code t} the
 *       kernel takes every waiting input whose event time is strictly before {@code t}, in the
 *       order (event time, rank, key, arrival), applies each, then runs its cycle with
 *       {@code now = t}. Effects decided at the tick carry {@code t} as their event time, so a
 *       downstream kernel applies them at its first tick after {@code t}.</li>
 *   <li><b>Time is the tick's.</b> Inputs never move a kernel's clock; {@code now} is the time of
 *       the last tick. An input far ahead of the clock is refused, never trusted.</li>
 * </ol>
 *
 * <p>So a cycle's decisions are a function of the state at the previous tick and of the
 * <em>set</em> of inputs timed before the tick — not of the order in which a transport delivered
 * them. The services on Kafka, the in-process twin and an audit replay of the input log decide
 * identically whenever every input timed before a tick has arrived by that tick. Each hand-off
 * between kernels costs one cycle; the in-process twin and the lockstep demo advance the clock by
 * 1 ms micro-ticks while a cascade runs, production ticks at the clock interval.
 */
package io.tideline.core.kernel;
