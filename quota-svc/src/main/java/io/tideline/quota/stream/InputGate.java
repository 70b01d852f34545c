package io.tideline.quota.stream;

import io.tideline.core.admission.SubmissionLimits;
import io.tideline.events.JobSubmitted;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.intake.JobIntake;
import io.tideline.platform.kernel.quota.QuotaHost;
import io.tideline.platform.topics.TopicCatalogue;
import java.nio.charset.StandardCharsets;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Stage 1, stateless and per input partition: decodes and checks every input record where its
 * topic, partition and offset are known, dead-letters what cannot be used (with the reason, on
 * {@code <topic>.dlq}, in the same transaction as everything else) and forwards the rest, keyed by
 * the cluster, to the single writer. Bad input never stops the stream.
 *
 * <p>Checks: Avro in the registry's wire format for every topic; {@link JobIntake} for submissions;
 * {@link QuotaHost#decode} for the others (the definition's syntax and the core's validator, a NaN
 * peak or utilisation refused rather than read as 0, the expected record type).
 */
final class InputGate implements Processor<byte[], byte[], String, Routed> {

  private final String service;
  private final String cluster;
  private final Deserializer<Object> avro;
  private final JobIntake intake;
  private final QuotaHost host;
  private final QuotaListener listener;
  private ProcessorContext<String, Routed> context;

  InputGate(String service, String cluster, SubmissionLimits limits, Deserializer<Object> avro,
      QuotaHost host, QuotaListener listener) {
    this.service = service;
    this.cluster = cluster;
    this.avro = avro;
    @SuppressWarnings({"unchecked", "rawtypes"})
    Deserializer<JobSubmitted> jobs = (Deserializer) avro;
    this.intake = new JobIntake(jobs, limits);
    this.host = host;
    this.listener = listener;
  }

  @Override
  public void init(ProcessorContext<String, Routed> context) {
    this.context = context;
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    RecordMetadata meta = context.recordMetadata().orElseThrow();
    String topic = meta.topic();
    String problem;
    String errorClass = DeadLetters.VALIDATION;
    if (TopicCatalogue.JOBS_SUBMITTED.equals(topic)) {
      JobIntake.Outcome o = intake.decode(topic, record.value());
      if (o instanceof JobIntake.Refused r) {
        problem = r.reason();
        errorClass = r.errorClass();
      } else {
        problem = null;
      }
    } else {
      Object decoded;
      try {
        decoded = record.value() == null ? null : avro.deserialize(topic, record.value());
      } catch (RuntimeException e) {
        decoded = e;
      }
      if (decoded == null || decoded instanceof RuntimeException) {
        problem = decoded == null ? "empty record (null value)"
            : "not Avro in the registry's wire format: " + ((Exception) decoded).getMessage();
        errorClass = DeadLetters.DESERIALIZATION;
      } else {
        problem = check(topic, decoded);
      }
    }
    if (problem != null) {
      context.forward(record.withKey(keyOf(record)).withValue(
          Routed.out(keyOf(record), deadLetter(record, meta, errorClass, problem))));
      listener.deadLettered(topic, errorClass);
      return;
    }
    listener.accepted(topic);
    context.forward(record.withKey(cluster).withValue(Routed.input(topic, record.value())));
  }

  /** The host's checks of a decoded input (the same the writer applies); {@code null} if usable. */
  private String check(String topic, Object decoded) {
    return host.decode(topic, decoded) instanceof QuotaHost.Decoded.Refused r ? r.reason() : null;
  }

  private static String keyOf(Record<byte[], byte[]> r) {
    return r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
  }

  private SpecificRecord deadLetter(Record<byte[], byte[]> r, RecordMetadata meta,
      String errorClass, String error) {
    return DeadLetters.envelope(meta.topic(), meta.partition(), meta.offset(), r.key(), r.value(),
        errorClass, error, service, r.timestamp());
  }
}
