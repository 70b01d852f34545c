/**
 * Quota: three-tier quotas (online guaranteed, offline guaranteed, shared pool) per tenant and team, borrowing caps, fair share, admission verdicts, idle reclamation and time-slot billing. Today it owns job intake: every submission is decoded and checked, and refused ones are dead-lettered with the reason.
 *
 * <p>Publishes: quota.verdicts, quota.state, billing.usage. A thin adapter: decisions come from {@code scheduler-core}.
 */
package io.tideline.quota;
