package io.tideline.platform.ledger;

import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.security.Provenance;
import io.tideline.platform.validation.EventValidator;
import io.tideline.platform.validation.InputBounds;
import io.tideline.platform.validation.RecordIntake;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * First stage of a single-writer topology: reads every input as raw bytes, so nothing can stop the
 * stream. Each record is decoded and checked through the platform's {@link RecordIntake} (the one
 * path every consumer of every topic shares: the type its input carries, then the
 * {@link EventValidator} with the configured {@link InputBounds}), then by the service's own
 * {@link Rules#check}; a refused record becomes a dead letter on {@code <topic>.dlq} with the reason — in
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

    /** The event type {@code input} carries. */
    Class<?> type(I input);

    /**
     * Why the service could not use {@code event} read from {@code input}, or {@code null}; runs
     * after the platform's checks (default: nothing more).
     */
    default String check(I input, Object event) {
      return null;
    }

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
      Refusals refusals, InputBounds bounds, Provenance provenance) {

    /** A setup whose guarded topics are {@link Provenance#DEFAULT}'s. */
    public Setup(String service, Class<I> inputs, I submissions, String accepted,
        Serializer<Object> serializer, Deserializer<Object> deserializer, String defaultCluster,
        Rules<I> rules, Refusals refusals, InputBounds bounds) {
      this(service, inputs, submissions, accepted, serializer, deserializer, defaultCluster,
          rules, refusals, bounds, Provenance.DEFAULT);
    }

    /** A setup with the default input bounds. */
    public Setup(String service, Class<I> inputs, I submissions, String accepted,
        Serializer<Object> serializer, Deserializer<Object> deserializer, String defaultCluster,
        Rules<I> rules, Refusals refusals) {
      this(service, inputs, submissions, accepted, serializer, deserializer, defaultCluster,
          rules, refusals, InputBounds.DEFAULTS);
    }
  }

  private final Setup<I> setup;
  private ProcessorContext<byte[], Out> context;
  private RecordIntake intake;
  private TopologyDeadLetters letters;

  /** An intake for one task. */
  public SingleWriterIntake(Setup<I> setup) {
    this.setup = setup;
  }

  @Override
  public void init(ProcessorContext<byte[], Out> context) {
    this.context = context;
    this.intake = new RecordIntake(setup.deserializer(), new EventValidator(setup.bounds()));
    this.letters = new TopologyDeadLetters(setup.serializer(), context.applicationId());
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
    // 0. a record of a decision topic written by someone not its owner is refused unread (ADR 0029)
    String forged = setup.provenance().refusal(meta.topic(), record.headers());
    if (forged != null) {
      refuse(record, meta, DeadLetters.PROVENANCE, forged);
      return;
    }
    // 1. decode and check (platform, then the service); 2. refuse with the reason or 3. forward
    //    re-keyed to the cluster (submissions carry none: the default cluster)
    RecordIntake.Outcome o = intake.read(meta.topic(), record.key(), record.value(),
        record.timestamp(), setup.rules().type(input));
    if (o instanceof RecordIntake.Refused r) {
      refuse(record, meta, r.errorClass(), r.reason());
      return;
    }
    if (!(o instanceof RecordIntake.Accepted a)) {
      refuse(record, meta, DeadLetters.DESERIALIZATION, "empty record (null value)");
      return;
    }
    String problem = setup.rules().check(input, a.event());
    if (problem != null) {
      refuse(record, meta, DeadLetters.VALIDATION, problem);
      return;
    }
    String cluster = input == setup.submissions() ? setup.defaultCluster()
        : setup.rules().clusterOf(a.event());
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
