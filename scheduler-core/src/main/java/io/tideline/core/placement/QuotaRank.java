package io.tideline.core.placement;

import java.util.Objects;

/**
 * How the quota service ranks a job's admission (Q1, Q3), as input to queue order: lower runs
 * first. The quota side owns the meaning; the suggested scale is 0 = within its guarantee,
 * 1 = borrowing from the shared pool, 2 = beyond its borrowing cap.
 *
 * @param rank verdict rank, lower first; not negative
 * @param verdict the verdict's name, for the trace
 */
public record QuotaRank(int rank, String verdict) {

  public QuotaRank {
    Objects.requireNonNull(verdict, "verdict");
    if (rank < 0) {
      throw new IllegalArgumentException("rank must not be negative, got " + rank);
    }
  }
}
