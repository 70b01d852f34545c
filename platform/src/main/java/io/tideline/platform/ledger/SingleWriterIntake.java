package io.tideline.platform.ledger;

import io.tideline.core.admission.SubmissionLimits;
import io.tideline.events.JobSubmitted;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.intake.JobIntake;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * First stage of a single-writer topology: reads every input as raw bytes, so nothing can stop the
 * stream. Each record is decoded (submissions through the platform's {@link JobIntake}, the one
 * path every consumer of {@code jobs.submitted} shares) and checked with the service's
 * {@link Rules}; a refused record becomes a dead letter on {@code <topic>.dlq} with the reason — in
 * the same exactly-once transaction as everything else — and an accepted one is wrapped in an
 * {@link Envelope}, addressed to the marker topic {@code accepted} and re-keyed to its cluster, so
 * one writer task sees all of a cluster's inputs in one order.
 *
 * @param <I> the service's input enum
 */
public final class SingleWriterIntake<I extends Enum<I> & InputTopic>
    implements Processor<byte[], byte[], byte[], Out> {

  /** What the service requires of its inputs. */
  public interface Rules<I> {

    /** Why the service could not use {@code event} read from {@code input}, or {@code null}. */
    String check(I input, Object event);

    /** The cluster an accepted event (not a submission) belongs to. */
    String clusterOf(Object event);
  }

  /** Told of every refused record (meters, logs), before its dead letter is forwarded. */
  public interface Refusals {

    /** {@code meta}'s record is dead-lettered with {@code errorClass} and {@code reason}. */
    void refused(RecordMetadata meta, String errorClass, String reason);
  }

  /**
   * What the intake needs: the service's name (for messages), its inputs, which of them carries
   * job submissions, the marker topic of accepted records, the registry serdes, the cluster of
   * submissions, the service's rules and who is told of refusals.
   */
  public record Setup<I extends Enum<I> & InputTopic>(String service, Class<I> inputs,
      I submissions, String accepted, Serializer<Object> serializer,
      Deserializer<Object> deserializer, String defaultCluster, Rules<I> rules,
      Refusals refusals) {}

  private final Setup<I> setup;
  private ProcessorContext<byte[], Out> context;
  private JobIntake intake;
  private TopologyDeadLetters letters;

  /** An intake for one task. */
  public SingleWriterIntake(Setup<I> setup) {
    this.setup = setup;
  }

  @Override
  public void init(ProcessorContext<byte[], Out> context) {
    this.context = context;
    this.intake = new JobIntake(typed(setup.deserializer()), SubmissionLimits.DEFAULTS);
    this.letters = new TopologyDeadLetters(setup.serializer(), context.applicationId());
  }

  /** A view of {@code d} typed as JobSubmitted; JobIntake checks the actual type it gets. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Deserializer<JobSubmitted> typed(Deserializer<Object> d) {
    return (Deserializer) d;
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    RecordMetadata meta = context.recordMetadata().orElseThrow();
    I input = InputTopic.of(setup.inputs(), meta.topic());
    if (input == null) {
      refuse(record, meta, DeadLetters.VALIDATION,
          "not an input of " + setup.service() + ": " + meta.topic());
      return;
    }
    // 1. decode and check; 2. refuse with the reason or 3. forward re-keyed to the cluster
    String cluster;
    if (input == setup.submissions()) {
      JobIntake.Outcome o = intake.decode(meta.topic(), record.value());
      if (o instanceof JobIntake.Refused r) {
        refuse(record, meta, r.errorClass(), r.reason());
        return;
      }
      cluster = setup.defaultCluster();
    } else {
      Object event;
      try {
        event = record.value() == null ? null
            : setup.deserializer().deserialize(meta.topic(), record.value());
      } catch (RuntimeException e) {
        refuse(record, meta, DeadLetters.DESERIALIZATION,
            "not Avro in the registry's wire format: " + e.getMessage());
        return;
      }
      String problem = setup.rules().check(input, event);
      if (problem != null) {
        refuse(record, meta, event == null ? DeadLetters.DESERIALIZATION : DeadLetters.VALIDATION,
            problem);
        return;
      }
      cluster = setup.rules().clusterOf(event);
    }
    byte[] envelope = new Envelope<>(input, meta.partition(), meta.offset(), record.value())
        .encode();
    context.forward(new Record<>(cluster.getBytes(StandardCharsets.UTF_8),
        new Out(setup.accepted(), envelope), record.timestamp()));
  }

  private void refuse(Record<byte[], byte[]> record, RecordMetadata meta, String errorClass,
      String reason) {
    setup.refusals().refused(meta, errorClass, reason);
    context.forward(new Record<>(record.key(), letters.letter(meta.topic(), meta.partition(),
        meta.offset(), record.key(), record.value(), errorClass, reason, record.timestamp()),
        record.timestamp()));
  }
}
