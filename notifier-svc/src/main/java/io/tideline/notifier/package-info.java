/**
 * Notifier: turns decisions into notices (Slack webhook, SMTP e-mail) with the reason, queue position, ETA and a quota-request link; retries, de-duplication, dead letters.
 *
 * <p>Publishes: notices. A thin adapter: decisions come from {@code scheduler-core}.
 *
 * <p>Notices follow applied facts, never intentions (ADR 0019): a preemption decision alone tells
 * nobody; the eviction placement applies is told, joined with the decision that ordered it by the
 * pure {@link io.tideline.notifier.join.EvictionJoin}, whose waiting halves are kept on the
 * compacted {@code notices.joins} and restored at start.
 *
 * <p>Reliability (issue #16): every input, and every record of the start-up restore, passes the
 * platform's shared input check; a refused or failing record is dead-lettered with the reason
 * and the engine goes on ({@code /q/health} is DOWN when it has stopped or stalled). Each message
 * carries an idempotency key (e-mail {@code Message-ID}, webhook {@code Idempotency-Key}); a
 * SENDING record precedes each send and a crash in between is re-sent with the same key at the
 * next start (ADR 0014). {@code PUT /directory/{userId}} sets a user's routing with the same
 * checks (400 with the reasons).
 */
package io.tideline.notifier;
