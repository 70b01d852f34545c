package io.tideline.core.model;

/**
 * What it costs a job to checkpoint and restore (requirement P4), as declared at submission.
 *
 * @param stateSizeGb weights plus optimizer state written per checkpoint, in GB (7B params ≈ 80 GB)
 * @param storageBandwidthGbPerSec write bandwidth to checkpoint storage per writer, in GB/s
 * @param writeShards parallel writers (sharded checkpoint); 1 = a single writer
 * @param intervalSeconds time between checkpoints (P4: 5–10 minutes)
 */
public record CheckpointProfile(
    double stateSizeGb, double storageBandwidthGbPerSec, int writeShards, long intervalSeconds) {}
