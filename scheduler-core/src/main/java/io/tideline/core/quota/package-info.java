/**
 * Three-tier quotas (requirements Q1–Q7, W4, P3 cooldown admission): fleet segments, the
 * organisation → business line → team → queue hierarchy, the usage ledger and its pure
 * transitions, borrowing from the shared pool, fair-share ranking, guarantee review, idle
 * reclamation and admission verdicts.
 *
 * <p>Everything here is a pure function of explicit inputs and {@code now}; the quota service maps
 * events to these calls and the verdicts back to events. GPU quantities are {@code double} (a
 * fractional inference instance counts by its share) snapped to a micro-GPU grid in the ledger so
 * long event sequences never drift.
 */
package io.tideline.core.quota;
