package io.tideline.core.preemption.bench;

import io.tideline.core.model.CheckpointProfile;
import io.tideline.core.model.WorkloadClass;
import io.tideline.core.preemption.NodeCluster;
import io.tideline.core.preemption.RunningJob;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A fleet-sized snapshot for the benchmark: exactly {@code jobCount} running jobs on
 * {@code nodes} full 8-GPU nodes. Nodes are either shared by 32 quarter-GPU inference instances or
 * carry training (whole-node, half-node, quarter-node jobs and multi-node gangs); the mix is
 * steered node by node so the job count comes out exact.
 */
final class LargeCluster {

  static final int GPUS_PER_NODE = 8;
  private static final int QUARTERS_PER_NODE = 32;

  final NodeCluster cluster;
  final List<RunningJob> jobs = new ArrayList<>();
  private final Random rnd;
  private final Instant now;

  LargeCluster(long seed, int nodes, int jobCount, Instant now) {
    this.rnd = new Random(seed);
    this.now = now;
    this.cluster = new NodeCluster(nodes, GPUS_PER_NODE);
    fill(nodes, jobCount);
  }

  private void fill(int nodes, int jobCount) {
    int node = 0;
    while (node < nodes) {
      int nodesLeft = nodes - node;
      int jobsLeft = jobCount - jobs.size();
      if (jobsLeft <= nodesLeft) {
        // 1. Few jobs left for many nodes: spread them as gangs covering every remaining node.
        int span = nodesLeft / jobsLeft + (nodesLeft % jobsLeft > 0 ? 1 : 0);
        gang(node, span);
        node += span;
        continue;
      }
      // 2. Otherwise share a node among quarter-GPU instances often enough to hit the count.
      double perNodeNeeded = (double) jobsLeft / nodesLeft;
      double pShared = Math.min(1, Math.max(0, (perNodeNeeded - 2.0) / (QUARTERS_PER_NODE - 2)));
      if (rnd.nextDouble() < pShared || jobsLeft - QUARTERS_PER_NODE >= 2 * (nodesLeft - 1)) {
        int count = Math.min(QUARTERS_PER_NODE, jobsLeft - (nodesLeft - 1));
        for (int k = 0; k < count; k++) {
          add(node, rnd.nextBoolean()
              ? WorkloadClass.ONLINE_INFERENCE : WorkloadClass.BATCH_INFERENCE, 0.25, 1);
        }
      } else {
        trainingNode(node);
      }
      node++;
    }
  }

  /** Whole node, 2 × 4, 4 × 2 or 8 × 1 GPUs. */
  private void trainingNode(int node) {
    int[] splits = {1, 1, 2, 4, 8};
    int parts = splits[rnd.nextInt(splits.length)];
    for (int k = 0; k < parts; k++) {
      WorkloadClass wc = rnd.nextInt(3) == 0
          ? WorkloadClass.EXPLORATORY_TRAINING : WorkloadClass.TRAINING;
      add(node, wc, (double) GPUS_PER_NODE / parts, 1);
    }
  }

  private void gang(int firstNode, int span) {
    String id = String.format("job-%05d", jobs.size());
    for (int k = 0; k < span; k++) {
      cluster.place(id, firstNode + k, GPUS_PER_NODE);
    }
    jobs.add(job(id, WorkloadClass.TRAINING, (double) span * GPUS_PER_NODE, span));
  }

  private void add(int node, WorkloadClass wc, double gpus, int span) {
    String id = String.format("job-%05d", jobs.size());
    cluster.place(id, node, gpus);
    jobs.add(job(id, wc, gpus, span));
  }

  private RunningJob job(String id, WorkloadClass wc, double gpus, int nodes) {
    boolean online = wc == WorkloadClass.ONLINE_INFERENCE;
    boolean training = wc == WorkloadClass.TRAINING || wc == WorkloadClass.EXPLORATORY_TRAINING;
    long runSeconds = 300 + rnd.nextInt(10 * 3600);
    Instant startedAt = now.minusSeconds(runSeconds);
    Instant lastPreempted = rnd.nextInt(10) == 0 ? startedAt.minusSeconds(60) : null;
    Instant lastCheckpoint = training && rnd.nextInt(10) < 9
        ? now.minusSeconds(rnd.nextInt((int) Math.min(runSeconds, 600))) : null;
    CheckpointProfile cp = training
        ? new CheckpointProfile(20 + rnd.nextInt(900), 2, 1 + rnd.nextInt(8), 600) : null;
    long remaining = rnd.nextInt(4) == 0 ? RunningJob.UNKNOWN_REMAINING : rnd.nextInt(24 * 3600);
    return new RunningJob(id, "tenant-" + rnd.nextInt(8), "user-" + rnd.nextInt(200), wc,
        rnd.nextInt(20) == 0, !online && rnd.nextInt(10) < 8, gpus, nodes, startedAt,
        lastPreempted, lastCheckpoint, rnd.nextBoolean(), rnd.nextInt(500), remaining,
        gpus * runSeconds / 3600.0, cp);
  }
}
