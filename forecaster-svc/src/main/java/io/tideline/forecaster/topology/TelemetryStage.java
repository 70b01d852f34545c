package io.tideline.forecaster.topology;

import io.tideline.core.forecast.kernel.ForecastInput.GpuObserved;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.kernel.forecast.ForecastHost;
import io.tideline.platform.kernel.forecast.ForecastHost.Decoded;
import io.tideline.platform.kernel.forecast.GpuMinuteFilter;
import io.tideline.platform.ledger.Out;
import io.tideline.platform.ledger.TopologyDeadLetters;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.validation.EventValidator;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * The telemetry stage, run where the samples are (partitioned by GPU): each sample is decoded
 * (only the six fields the forecaster uses and what the check needs of the rest,
 * {@link SampleFactsReader}), checked by the platform's shared {@link EventValidator}
 * ({@link SampleCheck}: the bounds and event-time rule every consumer of {@code gpu.telemetry}
 * applies; a null value is refused by its one tombstone rule), mapped by the
 * {@link ForecastHost}, and passed on to the kernel as its original envelope — unless the
 * {@link GpuMinuteFilter} knows it cannot change its GPU-minute (about one sample per GPU and
 * minute crosses to the kernel). All attribution is the kernel's; this stage holds no policy and
 * no store.
 */
final class TelemetryStage implements Processor<byte[], byte[], byte[], Out> {

  private final String topic;
  private final Decoder<SampleFacts> decoder;
  private final Decoder<BatchFacts> batches;
  private final EventValidator validator;
  private final SampleCheck check;
  private final ForecastSerdes serdes;
  private final ForecastMeters meters;
  private final TopologyDeadLetters letters;
  private final GpuMinuteFilter filter = new GpuMinuteFilter();
  private final io.micrometer.core.instrument.Counter passed;
  private final io.micrometer.core.instrument.Counter dropped;
  private final io.micrometer.core.instrument.Counter refused;
  private ProcessorContext<byte[], Out> context;

  TelemetryStage(ForecastSerdes serdes, EventValidator validator, String service,
      ForecastMeters meters) {
    this(TopicCatalogue.GPU_TELEMETRY, serdes, validator, service, meters);
  }

  /**
   * @param topic {@code gpu.telemetry} (a sample per record) or {@code gpu.telemetry.batches} (a
   *     node's scrape per record, ADR 0040: checked as a whole, passed on as one envelope when any
   *     of its GPUs can change its GPU-minute)
   */
  TelemetryStage(String topic, ForecastSerdes serdes, EventValidator validator, String service,
      ForecastMeters meters) {
    this.topic = topic;
    this.batches = new Decoder<>(BatchFacts.class, "GpuSampleBatch", serdes.telemetry());
    this.serdes = serdes;
    this.validator = validator;
    this.check = new SampleCheck(validator);
    this.meters = meters;
    this.decoder = new Decoder<>(SampleFacts.class, "GpuSample", serdes.telemetry());
    this.letters = new TopologyDeadLetters(serdes.writer(), service);
    this.passed = meters.samples("passed");
    this.dropped = meters.samples("dropped");
    this.refused = meters.samples("refused");
  }

  @Override
  public void init(ProcessorContext<byte[], Out> context) {
    this.context = context;
    filter.clear(); // a (re-)initialised task passes every GPU's next sample again
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    RecordMetadata where = context.recordMetadata().orElse(null);
    int partition = where == null ? -1 : where.partition();
    long offset = where == null ? -1 : where.offset();
    if (TopicCatalogue.GPU_TELEMETRY_BATCHES.equals(topic)) {
      batch(record, partition, offset);
      return;
    }
    Decoded d;
    if (record.value() == null) {
      d = new Decoded.Refused(DeadLetters.DESERIALIZATION,
          validator.tombstoneProblem(topic, record.key()));
    } else {
      Decoder.Result<SampleFacts> decoded =
          decoder.decode(topic, record.value(), record.headers());
      SampleFacts s = decoded.value();
      String problem = s == null ? null : check.problem(s, record.timestamp());
      d = s == null ? new Decoded.Refused(decoded.errorClass(), decoded.error())
          : problem != null ? new Decoded.Refused(DeadLetters.VALIDATION, problem)
          : ForecastHost.observation(s.gpuId(), s.nodeId(), s.sampledAt(), s.stale(),
              s.serviceId(), s.jobId());
    }
    if (d instanceof Decoded.Refused r) {
      refused.increment();
      meters.deadLettered(topic, r.errorClass());
      context.forward(new Record<>(record.key(), letters.letter(topic, partition, offset,
          record.key(), record.value(), r.errorClass(), r.reason(), record.timestamp()),
          record.timestamp()));
    } else if (d instanceof Decoded.Accepted a && filter.pass((GpuObserved) a.input())) {
      passed.increment();
      context.forward(new Record<>(record.key(), Envelopes.accepted(serdes.writer(),
          Envelopes.of(topic, partition, offset, record.key(), record.value())),
          record.timestamp()));
    } else {
      dropped.increment();
    }
  }

  /** A node's scrape: refused whole, or passed on whole if any GPU can change its minute. */
  private void batch(Record<byte[], byte[]> record, int partition, long offset) {
    String errorClass;
    String reason;
    if (record.value() == null) {
      errorClass = DeadLetters.DESERIALIZATION;
      reason = validator.tombstoneProblem(topic, record.key());
    } else {
      Decoder.Result<BatchFacts> decoded = batches.decode(topic, record.value(),
          record.headers());
      BatchFacts b = decoded.value();
      String problem = b == null ? null : check.problem(b, record.timestamp());
      if (b != null && problem == null) {
        int pass = 0;
        for (SampleFacts s : b.gpus()) {
          // every GPU is offered to the filter, so it remembers each GPU's minute
          if (ForecastHost.observation(s.gpuId(), s.nodeId(), s.sampledAt(), s.stale(),
              s.serviceId(), s.jobId()) instanceof Decoded.Accepted a
              && filter.pass((GpuObserved) a.input())) {
            pass++;
          }
        }
        passed.increment(pass);
        dropped.increment(b.gpus().size() - pass);
        if (pass > 0) {
          context.forward(new Record<>(record.key(), Envelopes.accepted(serdes.writer(),
              Envelopes.of(topic, partition, offset, record.key(), record.value())),
              record.timestamp()));
        }
        return;
      }
      errorClass = b == null ? decoded.errorClass() : DeadLetters.VALIDATION;
      reason = b == null ? decoded.error() : problem;
    }
    refused.increment();
    meters.deadLettered(topic, errorClass);
    context.forward(new Record<>(record.key(), letters.letter(topic, partition, offset,
        record.key(), record.value(), errorClass, reason, record.timestamp()),
        record.timestamp()));
  }
}
