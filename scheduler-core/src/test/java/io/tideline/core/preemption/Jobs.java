package io.tideline.core.preemption;

import io.tideline.core.model.CheckpointProfile;
import io.tideline.core.model.WorkloadClass;
import java.time.Instant;

/** Test builder for {@link RunningJob}: a checkpointed 8-GPU training job unless told otherwise. */
final class Jobs {

  /** The P4 worked example: 7B parameters ≈ 80 GB at 2 GB/s, one writer, 10-minute interval. */
  static final CheckpointProfile SEVEN_B_SINGLE_WRITER = new CheckpointProfile(80, 2, 1, 600);

  private String jobId;
  private String tenant = "search";
  private String user = "alice";
  private WorkloadClass workloadClass = WorkloadClass.TRAINING;
  private boolean critical;
  private boolean preemptible = true;
  private double gpus = 8;
  private int nodes = 1;
  private Instant startedAt = Instant.parse("2026-11-02T12:00:00Z");
  private Instant lastPreemptedAt;
  private Instant lastCheckpointAt;
  private boolean cacheWarm;
  private double dataCacheGb;
  private long remainingSeconds = RunningJob.UNKNOWN_REMAINING;
  private double gpuHoursConsumed;
  private CheckpointProfile checkpoint = SEVEN_B_SINGLE_WRITER;

  private Jobs(String jobId) {
    this.jobId = jobId;
  }

  static Jobs training(String jobId) {
    return new Jobs(jobId);
  }

  static Jobs exploratory(String jobId) {
    return new Jobs(jobId).workloadClass(WorkloadClass.EXPLORATORY_TRAINING);
  }

  static Jobs batchInference(String jobId) {
    return new Jobs(jobId).workloadClass(WorkloadClass.BATCH_INFERENCE).checkpoint(null);
  }

  static Jobs onlineInference(String jobId) {
    return new Jobs(jobId).workloadClass(WorkloadClass.ONLINE_INFERENCE).checkpoint(null)
        .preemptible(false);
  }

  Jobs tenant(String v) {
    tenant = v;
    return this;
  }

  Jobs user(String v) {
    user = v;
    return this;
  }

  Jobs workloadClass(WorkloadClass v) {
    workloadClass = v;
    return this;
  }

  Jobs critical(boolean v) {
    critical = v;
    return this;
  }

  Jobs preemptible(boolean v) {
    preemptible = v;
    return this;
  }

  Jobs gpus(double v) {
    gpus = v;
    return this;
  }

  Jobs nodes(int v) {
    nodes = v;
    return this;
  }

  Jobs startedAt(String iso) {
    return startedAt(Instant.parse(iso));
  }

  Jobs startedAt(Instant v) {
    startedAt = v;
    return this;
  }

  Jobs lastPreemptedAt(String iso) {
    lastPreemptedAt = Instant.parse(iso);
    return this;
  }

  Jobs lastPreemptedAt(Instant v) {
    lastPreemptedAt = v;
    return this;
  }

  Jobs lastCheckpointAt(String iso) {
    lastCheckpointAt = Instant.parse(iso);
    return this;
  }

  Jobs lastCheckpointAt(Instant v) {
    lastCheckpointAt = v;
    return this;
  }

  Jobs cacheWarm(double gb) {
    cacheWarm = true;
    dataCacheGb = gb;
    return this;
  }

  Jobs cacheCold(double gb) {
    cacheWarm = false;
    dataCacheGb = gb;
    return this;
  }

  Jobs remainingSeconds(long v) {
    remainingSeconds = v;
    return this;
  }

  Jobs gpuHoursConsumed(double v) {
    gpuHoursConsumed = v;
    return this;
  }

  Jobs checkpoint(CheckpointProfile v) {
    checkpoint = v;
    return this;
  }

  RunningJob build() {
    return new RunningJob(jobId, tenant, user, workloadClass, critical, preemptible, gpus, nodes,
        startedAt, lastPreemptedAt, lastCheckpointAt, cacheWarm, dataCacheGb, remainingSeconds,
        gpuHoursConsumed, checkpoint);
  }
}
