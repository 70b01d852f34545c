package io.tideline.platform.intake;

import io.tideline.core.admission.SubmissionCheck;
import io.tideline.core.admission.SubmissionLimits;
import io.tideline.core.model.JobRequest;
import io.tideline.events.JobSubmitted;
import io.tideline.platform.validation.EventValidator;
import io.tideline.platform.validation.InputBounds;
import io.tideline.platform.validation.RecordIntake;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Turns the raw bytes of a {@code jobs.submitted} record into a checked job, or says precisely why
 * it cannot: not Avro in our wire format (deserialization), or Avro with impossible values
 * (validation: the platform's {@link EventValidator}, which applies the core's
 * {@link SubmissionCheck} and every field bound). Every consumer of submissions uses this one
 * path, so they accept and refuse exactly the same records.
 */
public final class JobIntake {

  /** The outcome for one record. */
  public sealed interface Outcome permits Accepted, Refused {}

  /** A well-formed submission. */
  public record Accepted(JobSubmitted event, JobRequest request) implements Outcome {}

  /** A refused record: which kind of failure and the reason in words. */
  public record Refused(String errorClass, String reason) implements Outcome {}

  private final RecordIntake intake;

  /** An intake with the default bounds and {@code limits} on submissions. */
  public JobIntake(Deserializer<JobSubmitted> deserializer, SubmissionLimits limits) {
    this(deserializer, InputBounds.DEFAULTS.withSubmissions(limits));
  }

  /** An intake with {@code bounds}. */
  public JobIntake(Deserializer<?> deserializer, InputBounds bounds) {
    this.intake = new RecordIntake(deserializer, new EventValidator(bounds));
  }

  /** Decodes a record whose Kafka timestamp is unknown (event time checked against earliest only). */
  public Outcome decode(String topic, byte[] value) {
    return decode(topic, null, value, -1);
  }

  /** Decodes one record read from {@code topic} with its key and Kafka timestamp. */
  public Outcome decode(String topic, byte[] key, byte[] value, long timestamp) {
    RecordIntake.Outcome o = intake.read(topic, key, value, timestamp, JobSubmitted.class);
    if (o instanceof RecordIntake.Refused r) {
      return new Refused(r.errorClass(), r.reason());
    }
    if (o instanceof RecordIntake.Accepted a) {
      JobSubmitted event = (JobSubmitted) a.event();
      return new Accepted(event, JobRequests.fromEvent(event));
    }
    return new Refused(io.tideline.platform.deadletter.DeadLetters.DESERIALIZATION,
        "empty record (null value)");
  }
}
