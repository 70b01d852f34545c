package io.tideline.core.preemption;

import io.tideline.core.model.CheckpointProfile;
import java.time.Instant;

/**
 * Prices an eviction in equivalent GPU-hours (P4), so preemption can compare it with the gain
 * (P5) and choose the cheapest victims. Victims that just wrote a checkpoint (little progress
 * lost) or whose cache is still cold (no warm-up lost) come out cheaper, as P4 asks.
 *
 * <pre>
 *   cost [GPU-h] = (write + restore + commRebuild + lostProgress + cacheWarmup) × gpusHeld / 3600
 *   write        = stateGb / bandwidthGbPerSec × ((1 − f) + f / writeShards)   f = 0.8 (Amdahl)
 *   restore      = 1.3 × write
 *   commRebuild  = min(50, 20 + 2 × (nodes − 1)) s for a multi-GPU job, 0 for a single GPU
 *   lostProgress = now − max(startedAt, lastCheckpointAt)
 *   cacheWarmup  = cacheWarm ? dataCacheGb / 2 GB/s : 0
 * </pre>
 *
 * <p>Worked example (P4): 7B parameters ≈ 80 GB at 2 GB/s is a 40 s single-writer write and a 52 s
 * restore; with 8 write shards (one per GPU of a node) the parallel 80% shrinks eightfold:
 * {@code 40 × (0.2 + 0.8 / 8) = 12 s}. A job without a checkpoint profile writes and restores
 * nothing but loses everything since its (re)start.
 */
public final class MigrationCostModel {

  private final PreemptionConfig config;

  public MigrationCostModel(PreemptionConfig config) {
    this.config = config;
  }

  /** The full P4 cost of evicting {@code job} at {@code now}. */
  public MigrationCost cost(RunningJob job, Instant now) {
    CheckpointProfile cp = job.checkpoint();
    double write = cp == null ? 0 : writeSeconds(cp);
    double restore = config.restoreFactor() * write;
    double comm = commRebuildSeconds(job.gpusHeld(), job.nodesSpanned());
    double lost = lostProgressSeconds(job, now);
    double warmup = job.cacheWarm() ? job.dataCacheGb() / config.cacheFillGbPerSec() : 0;
    return new MigrationCost(write, restore, comm, lost, warmup, job.gpusHeld());
  }

  /**
   * {@code cost(job, now).wallSeconds()} without building the {@link MigrationCost}: the same
   * terms summed in the same order, so the screening of thousands of candidates allocates nothing.
   */
  public double wallSeconds(RunningJob job, Instant now) {
    CheckpointProfile cp = job.checkpoint();
    double write = cp == null ? 0 : writeSeconds(cp);
    double restore = config.restoreFactor() * write;
    double comm = commRebuildSeconds(job.gpusHeld(), job.nodesSpanned());
    double lost = lostProgressSeconds(job, now);
    double warmup = job.cacheWarm() ? job.dataCacheGb() / config.cacheFillGbPerSec() : 0;
    return write + restore + comm + lost + warmup;
  }

  /** Checkpoint write time: single-writer time shortened by sharding (Amdahl, P4). */
  public double writeSeconds(CheckpointProfile cp) {
    double singleWriter = cp.stateSizeGb() / cp.storageBandwidthGbPerSec();
    double f = config.shardParallelFraction();
    int shards = Math.max(1, cp.writeShards());
    return singleWriter * ((1 - f) + f / shards);
  }

  /** Collective-communication rebuild, growing with node count up to the ceiling (P4). */
  public double commRebuildSeconds(double gpusHeld, int nodesSpanned) {
    if (gpusHeld <= 1) {
      return 0;
    }
    double grown = config.commRebuildBaseSeconds()
        + config.commRebuildPerExtraNodeSeconds() * Math.max(0, nodesSpanned - 1);
    return Math.min(config.commRebuildMaxSeconds(), grown);
  }

  /** Work since the later of the last checkpoint and the last (re)start, redone after restart. */
  public double lostProgressSeconds(RunningJob job, Instant now) {
    Instant since = job.startedAt();
    if (job.lastCheckpointAt() != null && job.lastCheckpointAt().isAfter(since)) {
      since = job.lastCheckpointAt();
    }
    return Math.max(0, Times.millisBetween(since, now) / 1000.0);
  }
}
