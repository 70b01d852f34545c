package io.tideline.simulator;

import io.tideline.core.model.CheckpointProfile;

/**
 * Named checkpoint profiles of the job trace format (P4), so a trace line says {@code MEDIUM}
 * instead of four numbers. The medium profile is P4's worked example: 7B parameters ≈ 80 GB of
 * weights and optimizer state at 2 GB/s, written by 8 shards, every 10 minutes.
 */
public enum CheckpointKind {
  /** Does not checkpoint: an eviction loses everything since the (re)start. */
  NONE(null),
  /** A small model: 10 GB, 2 GB/s, one writer, every 5 minutes. */
  SMALL(new CheckpointProfile(10, 2, 1, 300)),
  /** P4's example: 80 GB, 2 GB/s, 8 shards (12 s write), every 10 minutes. */
  MEDIUM(new CheckpointProfile(80, 2, 8, 600)),
  /** A 70B-class model: 800 GB, 2 GB/s, 32 shards, every 10 minutes. */
  LARGE(new CheckpointProfile(800, 2, 32, 600));

  private final CheckpointProfile profile;

  CheckpointKind(CheckpointProfile profile) {
    this.profile = profile;
  }

  /** The profile, or {@code null} for {@link #NONE}. */
  public CheckpointProfile profile() {
    return profile;
  }
}
