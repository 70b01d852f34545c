package io.tideline.core.fragmentation;

import java.time.Instant;
import java.util.Objects;

/**
 * A migration already executed, as far as the T4 rate limit cares: when, and how much GPU share
 * it moved.
 *
 * @param at when it was executed
 * @param gpuShare GPU share moved
 */
public record PastMigration(Instant at, double gpuShare) {

  public PastMigration {
    Objects.requireNonNull(at, "at");
  }
}
