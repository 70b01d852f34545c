package io.tideline.core.admission;

import io.tideline.core.model.CheckpointProfile;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides whether a submission is well-formed: impossible values (negative GPUs, a share
 * outside (0, 1], a gang larger than its GPUs, a job without GPUs that asks nothing else, a
 * deadline before submission …) are rejected here,
 * once, before quota or placement ever sees the job. Entitlement (may this tenant preempt?) is
 * quota's decision, not this one.
 */
public final class SubmissionCheck {

  private final SubmissionLimits limits;

  public SubmissionCheck(SubmissionLimits limits) {
    this.limits = limits;
  }

  /** Every violation found, in field order; empty when the submission is valid. */
  public List<Violation> violations(JobRequest job) {
    List<Violation> out = new ArrayList<>();
    requireText(out, "jobId", job.jobId());
    requireText(out, "tenant", job.tenant());
    requireText(out, "team", job.team());
    requireText(out, "user", job.user());
    if (job.workloadClass() == null) {
      out.add(new Violation("workloadClass", "is required"));
    }
    if (job.submittedAt() == null) {
      out.add(new Violation("submittedAt", "is required"));
    }
    checkResources(out, job);
    if (job.workloadClass() == WorkloadClass.ONLINE_INFERENCE && isBlank(job.serviceId())) {
      out.add(new Violation("serviceId", "online inference must name the service it belongs to"));
    }
    if (job.deadline() != null && job.submittedAt() != null
        && !job.deadline().isAfter(job.submittedAt())) {
      out.add(new Violation("deadline", "must be after submittedAt " + job.submittedAt()));
    }
    if (job.expectedDurationSeconds() < 0) {
      out.add(new Violation("expectedDurationSeconds", "must not be negative"));
    }
    if (job.dataCacheGb() < 0) {
      out.add(new Violation("dataCacheGb", "must not be negative"));
    }
    checkCheckpoint(out, job.checkpoint());
    return out;
  }

  private void checkResources(List<Violation> out, JobRequest job) {
    if (job.gpuCount() < 0) {
      out.add(new Violation("resources.gpuCount", "must not be negative, got " + job.gpuCount()));
    } else if (job.gpuCount() == 0) {
      checkGpuless(out, job);
      return;
    } else if (job.gpuCount() > limits.maxGpusPerJob()) {
      out.add(new Violation("resources.gpuCount",
          "must be at most " + limits.maxGpusPerJob() + ", got " + job.gpuCount()));
    }
    double share = job.gpuShare();
    if (!(share >= limits.minGpuShare() && share <= 1.0)) {
      out.add(new Violation("resources.gpuShare",
          "must be in [" + limits.minGpuShare() + ", 1.0], got " + share));
    } else if (share < 1.0 && job.gpuCount() > 1) {
      out.add(new Violation("resources.gpuShare",
          "a fractional share is only allowed for a single-GPU instance, got "
              + job.gpuCount() + " GPUs at " + share));
    }
    checkGang(out, job);
    if (job.nodes() < 0) {
      out.add(new Violation("resources.nodes", "must not be negative, got " + job.nodes()));
    } else if (job.gpuCount() > 0 && job.nodes() > job.gpuCount()) {
      out.add(new Violation("resources.nodes",
          "cannot exceed gpuCount " + job.gpuCount() + ", got " + job.nodes()));
    }
  }

  /**
   * A job without GPUs (ADR 0030): {@code gangSize} pods that must ask some CPU, memory or
   * extended resource per worker (else there is nothing to place), with no GPU share and no node
   * count (all pods on the tightest node that holds them, else spread over the roomiest).
   */
  private void checkGpuless(List<Violation> out, JobRequest job) {
    if (job.resources().isNone()) {
      out.add(new Violation("resources.gpuCount", "is 0, so each worker must ask CPU, memory or "
          + "an extended resource (resources.perWorker), got none"));
    }
    if (job.gpuShare() != 1.0) {
      out.add(new Violation("resources.gpuShare",
          "must be 1.0 for a job without GPUs, got " + job.gpuShare()));
    }
    checkGang(out, job);
    if (job.nodes() != 0) {
      out.add(new Violation("resources.nodes",
          "must be 0 for a job without GPUs, got " + job.nodes()));
    }
  }

  private void checkGang(List<Violation> out, JobRequest job) {
    if (job.gangSize() <= 0 || job.gangSize() > limits.maxGangSize()) {
      out.add(new Violation("resources.gangSize",
          "must be in [1, " + limits.maxGangSize() + "], got " + job.gangSize()));
    } else if (job.gpuCount() > 0 && job.gangSize() > job.gpuCount()) {
      out.add(new Violation("resources.gangSize",
          "cannot exceed gpuCount " + job.gpuCount() + ", got " + job.gangSize()));
    }
  }

  private static void checkCheckpoint(List<Violation> out, CheckpointProfile cp) {
    if (cp == null) {
      return;
    }
    if (cp.stateSizeGb() < 0) {
      out.add(new Violation("checkpoint.stateSizeGb", "must not be negative"));
    }
    if (!(cp.storageBandwidthGbPerSec() > 0)) {
      out.add(new Violation("checkpoint.storageBandwidthGbPerSec", "must be positive"));
    }
    if (cp.writeShards() <= 0) {
      out.add(new Violation("checkpoint.writeShards", "must be at least 1"));
    }
    if (cp.intervalSeconds() <= 0) {
      out.add(new Violation("checkpoint.intervalSeconds", "must be positive"));
    }
  }

  private static void requireText(List<Violation> out, String field, String value) {
    if (isBlank(value)) {
      out.add(new Violation(field, "is required"));
    }
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }
}
