/**
 * The generic scaffolding of a single-writer topology (placement's ledger, preemption's view): every
 * input read as raw bytes by an intake that dead-letters what the service cannot use and re-keys
 * the rest to its cluster as an {@link io.tideline.platform.ledger.Envelope}; the accepted inputs
 * recorded on a retained input log ({@link io.tideline.platform.ledger.InputLog}) that one task
 * per cluster reads in order. What an input must satisfy stays in the service
 * ({@link io.tideline.platform.ledger.SingleWriterIntake.Rules}); this package only carries bytes.
 */
package io.tideline.platform.ledger;
