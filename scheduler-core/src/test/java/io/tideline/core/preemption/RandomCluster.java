package io.tideline.core.preemption;

import io.tideline.core.model.CheckpointProfile;
import io.tideline.core.model.WorkloadClass;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A random but realistic cluster snapshot for property tests and benchmarks: 8-GPU nodes, filled
 * with multi-node training gangs, whole-node and partial-node jobs and quarter-GPU inference
 * instances, with lifecycle facts spread around every P3 boundary.
 */
final class RandomCluster {

  static final double GPUS_PER_NODE = 8;
  private static final WorkloadClass[] CLASSES = WorkloadClass.values();
  private static final double[] SIZES = {0.25, 1, 2, 4, 8};

  final NodeCluster cluster;
  final List<RunningJob> jobs = new ArrayList<>();
  private final Random rnd;
  private final Instant now;

  private RandomCluster(long seed, int nodes, Instant now) {
    this.rnd = new Random(seed);
    this.now = now;
    this.cluster = new NodeCluster(nodes, GPUS_PER_NODE);
  }

  /** A cluster of {@code nodes} 8-GPU nodes, filled at random from {@code seed}. */
  static RandomCluster generate(long seed, int nodes, Instant now) {
    RandomCluster c = new RandomCluster(seed, nodes, now);
    c.fill();
    return c;
  }

  private void fill() {
    int node = 0;
    int n = cluster.nodes();
    while (node < n) {
      if (node + 1 < n && rnd.nextDouble() < 0.15) {
        int span = Math.min(n - node, 2 + rnd.nextInt(3));
        String id = nextId();
        for (int k = 0; k < span; k++) {
          cluster.place(id, node + k, GPUS_PER_NODE);
        }
        jobs.add(job(id, pick(WorkloadClass.TRAINING, WorkloadClass.EXPLORATORY_TRAINING),
            span * GPUS_PER_NODE, span));
        node += span;
        continue;
      }
      double free = GPUS_PER_NODE;
      while (free > 0 && rnd.nextDouble() < 0.92) {
        double size = SIZES[rnd.nextInt(SIZES.length)];
        if (size > free) {
          continue;
        }
        WorkloadClass wc = size < 1
            ? pick(WorkloadClass.ONLINE_INFERENCE, WorkloadClass.BATCH_INFERENCE)
            : CLASSES[rnd.nextInt(CLASSES.length)];
        String id = nextId();
        cluster.place(id, node, size);
        jobs.add(job(id, wc, size, 1));
        free -= size;
      }
      node++;
    }
  }

  private String nextId() {
    return String.format("job-%05d", jobs.size());
  }

  private WorkloadClass pick(WorkloadClass a, WorkloadClass b) {
    return rnd.nextBoolean() ? a : b;
  }

  private RunningJob job(String id, WorkloadClass wc, double gpus, int nodes) {
    boolean online = wc == WorkloadClass.ONLINE_INFERENCE;
    // a quarter of the jobs started around the 15-minute protection boundary
    long runSeconds = rnd.nextInt(4) == 0 ? 840 + rnd.nextInt(120) : rnd.nextInt(8 * 3600);
    Instant startedAt = now.minusSeconds(runSeconds);
    // some were preempted just before their restart, around the 30-minute cooldown boundary
    Instant aroundCooldownEdge = now.minusSeconds(1740 + rnd.nextInt(120));
    Instant lastPreempted = rnd.nextInt(3) != 0 ? null
        : aroundCooldownEdge.isAfter(startedAt) ? startedAt : aroundCooldownEdge;
    // most checkpointed within their 5–10 minute interval, some never since the restart
    Instant lastCheckpoint = rnd.nextInt(10) < 8 && runSeconds > 0
        ? now.minusSeconds(rnd.nextInt((int) Math.min(runSeconds, 900))) : null;
    CheckpointProfile cp = wc == WorkloadClass.TRAINING || wc == WorkloadClass.EXPLORATORY_TRAINING
        ? new CheckpointProfile(10 + rnd.nextInt(1100), 1 + rnd.nextInt(8), 1 + rnd.nextInt(16),
            300 + rnd.nextInt(300))
        : null;
    return new RunningJob(id, rnd.nextBoolean() ? "search" : "ads", "user-" + rnd.nextInt(5), wc,
        rnd.nextInt(10) == 0, online ? rnd.nextInt(10) == 0 : rnd.nextInt(10) < 8, gpus, nodes,
        startedAt, lastPreempted, lastCheckpoint, rnd.nextBoolean(), rnd.nextInt(800),
        rnd.nextInt(3) == 0 ? RunningJob.UNKNOWN_REMAINING : rnd.nextInt(20_000),
        rnd.nextDouble() * 2000 * gpus / 8, cp);
  }

  /** A random preemptor of at most {@code maxGpus} GPUs. */
  static PreemptionRequest randomRequest(long seed, int maxGpus) {
    Random rnd = new Random(seed);
    int[] sizes = {1, 2, 4, 8, 16, 24};
    int gpus = sizes[rnd.nextInt(sizes.length)];
    while (gpus > maxGpus) {
      gpus /= 2;
    }
    gpus = Math.max(1, gpus);
    int nodes = gpus > 8 ? gpus / 8 : rnd.nextInt(2);
    WorkloadClass wc = rnd.nextBoolean()
        ? WorkloadClass.ONLINE_INFERENCE : CLASSES[rnd.nextInt(CLASSES.length)];
    return new PreemptionRequest("preemptor", rnd.nextBoolean() ? "search" : "ads", "pat", wc, rnd.nextInt(3) == 0, rnd.nextInt(8) > 0, gpus, nodes,
        rnd.nextInt(7200), rnd.nextInt(4) == 0 ? rnd.nextDouble() * 20 : 0,
        rnd.nextDouble() * 500);
  }
}
