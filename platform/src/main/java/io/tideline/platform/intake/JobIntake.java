package io.tideline.platform.intake;

import io.tideline.core.admission.SubmissionCheck;
import io.tideline.core.admission.SubmissionLimits;
import io.tideline.core.admission.Violation;
import io.tideline.core.model.JobRequest;
import io.tideline.events.JobSubmitted;
import io.tideline.platform.deadletter.DeadLetters;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Turns the raw bytes of a {@code jobs.submitted} record into a checked job, or says precisely why
 * it cannot: not Avro in our wire format (deserialization), or Avro with impossible values
 * (validation, via the core's {@link SubmissionCheck}). Every consumer of submissions uses this one
 * path, so they accept and refuse exactly the same records.
 */
public final class JobIntake {

  /** The outcome for one record. */
  public sealed interface Outcome permits Accepted, Refused {}

  /** A well-formed submission. */
  public record Accepted(JobSubmitted event, JobRequest request) implements Outcome {}

  /** A refused record: which kind of failure and the reason in words. */
  public record Refused(String errorClass, String reason) implements Outcome {}

  private final Deserializer<JobSubmitted> deserializer;
  private final SubmissionCheck check;

  public JobIntake(Deserializer<JobSubmitted> deserializer, SubmissionLimits limits) {
    this.deserializer = deserializer;
    this.check = new SubmissionCheck(limits);
  }

  public Outcome decode(String topic, byte[] value) {
    if (value == null) {
      return new Refused(DeadLetters.DESERIALIZATION, "empty record (null value)");
    }
    Object decoded;
    try {
      decoded = deserializer.deserialize(topic, value);
    } catch (RuntimeException e) {
      return new Refused(DeadLetters.DESERIALIZATION,
          "not a JobSubmitted in the registry's Avro wire format: " + rootMessage(e));
    }
    if (!(decoded instanceof JobSubmitted event)) {
      return new Refused(DeadLetters.DESERIALIZATION, "expected a JobSubmitted record, got "
          + (decoded == null ? "null" : decoded.getClass().getName()));
    }
    return check(event);
  }

  /**
   * The semantic half of {@link #decode}, for a submission built in memory rather than read from
   * the topic (the Kubernetes executor turns pods into one): the same core rules, so a job the
   * executor publishes is one every consumer accepts.
   */
  public Outcome check(JobSubmitted event) {
    JobRequest request = JobRequests.fromEvent(event);
    List<Violation> violations = check.violations(request);
    if (!violations.isEmpty()) {
      return new Refused(DeadLetters.VALIDATION, "job " + event.getJobId() + " is invalid: "
          + violations.stream().map(Violation::toString).collect(Collectors.joining("; ")));
    }
    return new Accepted(event, request);
  }

  private static String rootMessage(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == t ? String.valueOf(t.getMessage())
        : t.getMessage() + " (caused by " + root.getClass().getSimpleName() + ": "
            + root.getMessage() + ")";
  }
}
