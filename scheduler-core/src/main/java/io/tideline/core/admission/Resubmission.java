package io.tideline.core.admission;

import io.tideline.core.model.JobRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a submission of an already known job id is (issue #16, finding 4): an idempotent repeat
 * (the same content — a producer retry, a replay — is ignored) or a conflict (different content
 * under the same id: refused with the fields that differ, so nobody can change an admitted job's
 * size, class or tenant by resubmitting it). "Content" is every field of the {@link JobRequest}:
 * the fields every decision reads. One rule in the core so quota and placement classify the same
 * record the same way.
 */
public final class Resubmission {

  private Resubmission() {}

  /** The classification. */
  public sealed interface Outcome permits Repeat, Conflict {}

  /** The same content again: nothing to do. */
  public record Repeat() implements Outcome {}

  /**
   * Different content under a known id.
   *
   * @param differences "field: known …, resubmitted …" per differing field, in field order
   */
  public record Conflict(List<String> differences) implements Outcome {
    public Conflict {
      differences = List.copyOf(differences);
    }

    /** The reason for the dead letter. */
    public String reason(String jobId) {
      return "job id " + jobId + " is already known with other content (a resubmission must be"
          + " identical; use a new id for a new job): " + String.join("; ", differences);
    }
  }

  /** Classifies {@code incoming} against the {@code known} submission of the same id. */
  public static Outcome classify(JobRequest known, JobRequest incoming) {
    List<String> d = new ArrayList<>();
    diff(d, "tenant", known.tenant(), incoming.tenant());
    diff(d, "team", known.team(), incoming.team());
    diff(d, "user", known.user(), incoming.user());
    diff(d, "workloadClass", known.workloadClass(), incoming.workloadClass());
    diff(d, "critical", known.critical(), incoming.critical());
    diff(d, "preemptible", known.preemptible(), incoming.preemptible());
    diff(d, "preemptionRight", known.preemptionRight(), incoming.preemptionRight());
    diff(d, "serviceId", known.serviceId(), incoming.serviceId());
    diff(d, "gpuCount", known.gpuCount(), incoming.gpuCount());
    diff(d, "gpuShare", known.gpuShare(), incoming.gpuShare());
    diff(d, "gangSize", known.gangSize(), incoming.gangSize());
    diff(d, "nodes", known.nodes(), incoming.nodes());
    diff(d, "allowedGpuModels", known.allowedGpuModels(), incoming.allowedGpuModels());
    diff(d, "submittedAt", known.submittedAt(), incoming.submittedAt());
    diff(d, "deadline", known.deadline(), incoming.deadline());
    diff(d, "expectedDurationSeconds", known.expectedDurationSeconds(),
        incoming.expectedDurationSeconds());
    diff(d, "checkpoint", known.checkpoint(), incoming.checkpoint());
    diff(d, "dataCacheGb", known.dataCacheGb(), incoming.dataCacheGb());
    if (d.isEmpty() && !known.equals(incoming)) {
      d.add("fields not listed here differ"); // a field added to JobRequest later
    }
    return d.isEmpty() ? new Repeat() : new Conflict(d);
  }

  private static void diff(List<String> out, String field, Object known, Object incoming) {
    if (!Objects.equals(known, incoming)) {
      out.add(field + ": known " + known + ", resubmitted " + incoming);
    }
  }
}
