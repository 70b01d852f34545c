package io.tideline.core.quota;

/**
 * The levels of the quota hierarchy (requirement Q2), top to bottom. Each level's parent must be the
 * level above it, so a job's {@code tenant}/{@code team}/lane resolves to exactly one queue.
 */
public enum NodeKind {
  /** The root: the whole organisation and fleet. */
  ORGANISATION,
  /** A business line, the paying tenant of a {@code JobRequest}. */
  BUSINESS_LINE,
  /** A team inside a business line. */
  TEAM,
  /** A team's queue for one lane (Q6): the leaf that holds usage. */
  QUEUE;

  /** The kind a parent of this kind must have, or {@code null} for the root. */
  public NodeKind parentKind() {
    return this == ORGANISATION ? null : values()[ordinal() - 1];
  }
}
