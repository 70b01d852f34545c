package io.tideline.core.cluster;

import io.tideline.core.model.CheckpointProfile;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.Resources;
import io.tideline.core.model.WorkloadClass;
import java.time.Instant;
import java.util.List;

/** Builds job requests for scenarios: a training gang or a fractional inference instance. */
public final class TestJobs {

  public static final Instant T0 = Instant.parse("2026-11-02T14:00:00Z");

  private String id;
  private WorkloadClass workloadClass = WorkloadClass.TRAINING;
  private boolean preemptible = true;
  private String serviceId;
  private int gpus = 1;
  private double share = 1.0;
  private int gang = 1;
  private int nodes;
  private List<String> models = List.of();
  private Instant submittedAt = T0;
  private Resources resources = Resources.NONE;

  private TestJobs(String id) {
    this.id = id;
  }

  /** A preemptible training job of {@code gpus} GPUs as one worker per GPU (may spread). */
  public static TestJobs training(String id, int gpus) {
    TestJobs j = new TestJobs(id);
    j.gpus = gpus;
    j.gang = gpus;
    return j;
  }

  /** A non-preemptible online inference instance of {@code share} of one GPU for "ranker". */
  public static TestJobs instance(String id, double share) {
    TestJobs j = new TestJobs(id);
    j.workloadClass = WorkloadClass.ONLINE_INFERENCE;
    j.preemptible = false;
    j.serviceId = "ranker";
    j.share = share;
    return j;
  }

  /** {@code pods} pods without GPUs, each asking {@code each} (ADR 0030). */
  public static TestJobs pods(String id, int pods, Resources each) {
    TestJobs j = new TestJobs(id);
    j.gpus = 0;
    j.gang = pods;
    j.resources = each;
    return j;
  }

  /** What each worker asks besides GPUs. */
  public TestJobs resources(Resources each) {
    this.resources = each;
    return this;
  }

  /** Number of workers the GPUs are split into (a worker never spans nodes). */
  public TestJobs workers(int workers) {
    this.gang = workers;
    return this;
  }

  /** Spread over exactly {@code nodes} nodes. */
  public TestJobs nodes(int nodes) {
    this.nodes = nodes;
    return this;
  }

  public TestJobs models(String... models) {
    this.models = List.of(models);
    return this;
  }

  public TestJobs preemptible(boolean p) {
    this.preemptible = p;
    return this;
  }

  public TestJobs service(String serviceId) {
    this.serviceId = serviceId;
    return this;
  }

  public TestJobs workloadClass(WorkloadClass c) {
    this.workloadClass = c;
    return this;
  }

  public TestJobs submittedAt(Instant at) {
    this.submittedAt = at;
    return this;
  }

  public JobRequest build() {
    return new JobRequest(id, "search", "ranking", "alice", workloadClass, false, preemptible,
        false, serviceId, gpus, share, gang, nodes, models, submittedAt, null, 3600,
        workloadClass == WorkloadClass.ONLINE_INFERENCE ? null
            : new CheckpointProfile(80, 2, 1, 600), 0, resources);
  }
}
