/**
 * Time-slot pricing and metering (requirements B1, B2): a price table of slot class × GPU model,
 * reserved discounts and burst premiums, per-second metering split at slot boundaries, and the
 * cheapest start for a job with a deadline. Pure functions of explicit instants; money is
 * {@link java.math.BigDecimal}.
 */
package io.tideline.core.pricing;
