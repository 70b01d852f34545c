package io.tideline.quota.stream;

import io.tideline.core.admission.SubmissionLimits;
import io.tideline.events.ClockTick;
import io.tideline.events.GpuSample;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.QuotaConfigDocument;
import io.tideline.events.SlotForecast;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.intake.JobIntake;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.quota.definition.QuotaDocuments;
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
 * {@link QuotaDocuments#parse} (syntax + the core's validator) for quota definitions; basic sanity
 * for the others (a NaN peak or utilisation is refused, not read as 0).
 */
final class InputGate implements Processor<byte[], byte[], String, Routed> {

  private final String service;
  private final String cluster;
  private final Deserializer<Object> avro;
  private final JobIntake intake;
  private final QuotaListener listener;
  private ProcessorContext<String, Routed> context;

  InputGate(String service, String cluster, SubmissionLimits limits, Deserializer<Object> avro,
      QuotaListener listener) {
    this.service = service;
    this.cluster = cluster;
    this.avro = avro;
    @SuppressWarnings({"unchecked", "rawtypes"})
    Deserializer<JobSubmitted> jobs = (Deserializer) avro;
    this.intake = new JobIntake(jobs, limits);
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

  /** Semantic checks of a decoded input; {@code null} when usable. */
  private static String check(String topic, Object decoded) {
    switch (topic) {
      case QuotaTopics.CONFIG -> {
        if (!(decoded instanceof QuotaConfigDocument d)) {
          return "expected a QuotaConfigDocument, got " + decoded.getClass().getSimpleName();
        }
        try {
          QuotaDocuments.parse(d.getDocument(), d.getVersion());
          return null;
        } catch (QuotaDocuments.InvalidDefinition e) {
          return "quota definition " + d.getVersion() + " refused, the previous one stays in force: "
              + e.getMessage();
        }
      }
      case TopicCatalogue.JOBS_LIFECYCLE -> {
        return decoded instanceof JobLifecycle ? null : "expected a JobLifecycle";
      }
      case TopicCatalogue.FORECAST_SLOTS -> {
        if (!(decoded instanceof SlotForecast f)) {
          return "expected a SlotForecast";
        }
        double p = f.getHistoricalPeak();
        return Double.isNaN(p) || p < 0 || Double.isInfinite(p)
            ? "historicalPeak of " + f.getServiceId() + " must be a number >= 0, got " + p : null;
      }
      case TopicCatalogue.GPU_TELEMETRY -> {
        if (!(decoded instanceof GpuSample s)) {
          return "expected a GpuSample";
        }
        Double u = s.getUtilizationPct();
        return u != null && !(u >= 0 && u <= 100)
            ? "utilizationPct of " + s.getGpuId() + " must be in [0, 100], got " + u : null;
      }
      case TopicCatalogue.CLUSTER_CLOCK -> {
        return decoded instanceof ClockTick ? null : "expected a ClockTick";
      }
      default -> {
        return "unexpected input topic " + topic;
      }
    }
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
