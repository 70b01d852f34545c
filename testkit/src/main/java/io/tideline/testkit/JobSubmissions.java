package io.tideline.testkit;

import io.tideline.events.CheckpointProfile;
import io.tideline.events.HardwarePreference;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NotificationContacts;
import io.tideline.events.ResourceRequest;
import io.tideline.events.WorkloadClass;
import java.time.Instant;
import java.util.List;

/**
 * Builder of {@code jobs.submitted} events for tests: sensible defaults (an 8-GPU preemptible
 * training gang with the 7B-model checkpoint profile of P4), explicit timestamps, one call per
 * thing a scenario cares about.
 */
public final class JobSubmissions {

  private long expectedDurationSeconds;
  private String jobId = "job-1";
  private Instant submittedAt = Instant.parse("2026-11-02T09:00:00Z");
  private String tenant = "search";
  private String team = "ranking";
  private String user = "alice";
  private WorkloadClass workloadClass = WorkloadClass.TRAINING;
  private boolean preemptible = true;
  private boolean preemptionRight;
  private String serviceId;
  private int gpuCount = 8;
  private double gpuShare = 1.0;
  private int gangSize = 8;
  private int nodes = 1;
  private List<String> models = List.of();
  private CheckpointProfile checkpoint = CheckpointProfile.newBuilder()
      .setStateSizeGb(80).setStorageBandwidthGbPerSec(2).setWriteShards(1).setIntervalSeconds(600)
      .build();

  private JobSubmissions() {}

  /** An 8-GPU preemptible training gang. */
  public static JobSubmissions training(String jobId) {
    JobSubmissions b = new JobSubmissions();
    b.jobId = jobId;
    return b;
  }

  /** A fractional online inference instance of a service, with the right to preempt. */
  public static JobSubmissions onlineInference(String jobId, String serviceId, double share) {
    JobSubmissions b = training(jobId);
    b.workloadClass = WorkloadClass.ONLINE_INFERENCE;
    b.serviceId = serviceId;
    b.preemptible = false;
    b.preemptionRight = true;
    b.gpuCount = 1;
    b.gpuShare = share;
    b.gangSize = 1;
    b.nodes = 0;
    b.checkpoint = null;
    return b;
  }

  public JobSubmissions at(Instant t) {
    this.submittedAt = t;
    return this;
  }

  public JobSubmissions tenant(String tenant, String team) {
    this.tenant = tenant;
    this.team = team;
    return this;
  }

  public JobSubmissions user(String user) {
    this.user = user;
    return this;
  }

  public JobSubmissions gpus(int count) {
    this.gpuCount = count;
    this.gangSize = Math.max(1, Math.min(gangSize, count));
    return this;
  }

  public JobSubmissions gang(int gangSize, int nodes) {
    this.gangSize = gangSize;
    this.nodes = nodes;
    return this;
  }

  public JobSubmissions models(String... models) {
    this.models = List.of(models);
    return this;
  }

  public JobSubmissions preemptible(boolean preemptible) {
    this.preemptible = preemptible;
    return this;
  }

  /** The submitter's estimate of the run time (placement's start estimates read it). */
  public JobSubmissions expectedDuration(java.time.Duration d) {
    this.expectedDurationSeconds = d.toSeconds();
    return this;
  }

  public JobSubmissions workloadClass(WorkloadClass c) {
    this.workloadClass = c;
    return this;
  }

  public JobSubmitted build() {
    return JobSubmitted.newBuilder()
        .setJobId(jobId)
        .setSubmittedAt(submittedAt)
        .setTenant(tenant)
        .setTeam(team)
        .setUser(user)
        .setWorkloadClass(workloadClass)
        .setPreemptible(preemptible)
        .setPreemptionRight(preemptionRight)
        .setServiceId(serviceId)
        .setResources(ResourceRequest.newBuilder()
            .setGpuCount(gpuCount).setGpuShare(gpuShare).setGangSize(gangSize).setNodes(nodes)
            .setAllowedGpuModels(models).setHardwarePreference(HardwarePreference.ANY).build())
        .setCheckpoint(checkpoint)
        .setExpectedDurationSeconds(expectedDurationSeconds)
        .setContacts(NotificationContacts.newBuilder()
            .setEmail(user + "@example.com").setSlackUserId(null).setLocale("en").build())
        .build();
  }
}
