package io.tideline.quota.stream;

import io.tideline.events.ClockTick;
import io.tideline.events.GpuSample;
import io.tideline.events.GpuSampleBatch;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.QuotaConfigDocument;
import io.tideline.events.SlotForecast;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.kernel.quota.QuotaHost;
import io.tideline.platform.security.Provenance;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.validation.EventValidator;
import io.tideline.platform.validation.InputBounds;
import io.tideline.platform.validation.RecordIntake;
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
 * <p>Checks: the platform's {@link RecordIntake} for every topic (Avro in the registry's wire
 * format of the topic's type, then every bound of the shared {@code EventValidator}: the same
 * rules placement, preemption, the forecaster and the notifier apply, ADR 0012); then
 * {@link QuotaHost#decode}, the checks the writer applies (a definition's syntax and the core's
 * validator, a NaN peak or utilisation refused rather than read as 0).
 */
final class InputGate implements Processor<byte[], byte[], String, Routed> {

  private final String service;
  private final String cluster;
  private final RecordIntake intake;
  private final QuotaHost host;
  private final QuotaListener listener;
  private ProcessorContext<String, Routed> context;

  InputGate(String service, String cluster, InputBounds bounds, Deserializer<Object> avro,
      QuotaHost host, QuotaListener listener) {
    this.service = service;
    this.cluster = cluster;
    this.intake = new RecordIntake(avro, new EventValidator(bounds));
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
    Class<?> type = typeOf(topic);
    String forged = Provenance.DEFAULT.refusal(topic, record.headers());
    if (type == null) {
      problem = "unexpected input topic " + topic;
    } else if (forged != null) {
      // before it is decoded: a quota document nobody entitled wrote never applies (ADR 0029)
      problem = forged;
      errorClass = DeadLetters.PROVENANCE;
    } else {
      RecordIntake.Outcome o = intake.read(topic, record.key(), record.value(),
          record.timestamp(), type);
      if (o instanceof RecordIntake.Refused r) {
        problem = r.reason();
        errorClass = r.errorClass();
      } else if (o instanceof RecordIntake.Accepted a) {
        problem = check(topic, a.event());
      } else {
        problem = "empty record (null value)";
        errorClass = DeadLetters.DESERIALIZATION;
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

  /** The event type each input topic carries. */
  private static Class<?> typeOf(String topic) {
    return switch (topic) {
      case QuotaTopics.CONFIG -> QuotaConfigDocument.class;
      case TopicCatalogue.JOBS_SUBMITTED -> JobSubmitted.class;
      case TopicCatalogue.JOBS_LIFECYCLE -> JobLifecycle.class;
      case TopicCatalogue.FORECAST_SLOTS -> SlotForecast.class;
      case TopicCatalogue.GPU_TELEMETRY -> GpuSample.class;
      case TopicCatalogue.GPU_TELEMETRY_BATCHES -> GpuSampleBatch.class;
      case TopicCatalogue.CLUSTER_CLOCK -> ClockTick.class;
      default -> null;
    };
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
