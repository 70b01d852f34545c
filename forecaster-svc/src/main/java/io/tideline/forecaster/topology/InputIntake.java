package io.tideline.forecaster.topology;

import io.tideline.core.forecast.kernel.ForecastInput;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.kernel.forecast.ForecastHost;
import io.tideline.platform.kernel.forecast.ForecastHost.Decoded;
import io.tideline.platform.ledger.Out;
import io.tideline.platform.ledger.TopologyDeadLetters;
import io.tideline.platform.security.Provenance;
import io.tideline.platform.validation.Clip;
import io.tideline.platform.validation.RecordIntake;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * The intake of one low-volume input (clock, holidays, jobs, lifecycle, inventory), read as raw
 * bytes so nothing can stop the stream: the record is decoded through the registry, checked by
 * the platform's shared {@code EventValidator} and mapped, both through the {@link ForecastHost}
 * (field bounds, the event time against the record's Kafka timestamp, the one tombstone rule).
 * A refused record becomes a dead letter with the reason, an ignored one is dropped, an accepted
 * one goes on to the kernel as its original envelope ({@link Envelopes}). An accepted tick is
 * stamped with its own time; a tick the check refuses (before the earliest time, or further
 * after its record's timestamp than {@code tideline.intake.max-lead}) is dead-lettered with its
 * record's timestamp and never reaches the kernel, so it cannot move the forecaster's clock.
 */
final class InputIntake implements Processor<byte[], byte[], byte[], Out> {

  private final String topic;
  private final String type;
  private final ForecastHost host;
  private final ForecastSerdes serdes;
  private final ForecastMeters meters;
  private final TopologyDeadLetters letters;
  private ProcessorContext<byte[], Out> context;

  /** @param type the record type the topic carries, as errors name it */
  InputIntake(String topic, String type, ForecastHost host, ForecastSerdes serdes,
      String service, ForecastMeters meters) {
    this.topic = topic;
    this.type = type;
    this.host = host;
    this.serdes = serdes;
    this.meters = meters;
    this.letters = new TopologyDeadLetters(serdes.writer(), service);
  }

  @Override
  public void init(ProcessorContext<byte[], Out> context) {
    this.context = context;
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    RecordMetadata where = context.recordMetadata().orElse(null);
    int partition = where == null ? -1 : where.partition();
    long offset = where == null ? -1 : where.offset();
    // before it is decoded: a lifecycle fact the executor did not write moves nothing (ADR 0029)
    String forged = Provenance.DEFAULT.refusal(topic, record.headers());
    if (forged != null) {
      refuse(record, partition, offset, DeadLetters.PROVENANCE, forged);
      return;
    }
    Object value = null;
    if (record.value() != null) {
      try {
        value = serdes.records().deserialize(topic, record.value());
      } catch (RuntimeException | StackOverflowError e) {
        refuse(record, partition, offset, DeadLetters.DESERIALIZATION, "not a " + type
            + " in the registry's Avro wire format: " + RecordIntake.rootMessage(e));
        return;
      }
    }
    String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
    Decoded decoded = host.decode(topic, key, value, record.timestamp());
    if (decoded instanceof Decoded.Refused r) {
      refuse(record, partition, offset, r.errorClass(), r.reason());
    } else if (decoded instanceof Decoded.Accepted a) {
      long at = a.input() instanceof ForecastInput.Ticked t ? t.tick().at().toEpochMilli()
          : record.timestamp();
      context.forward(new Record<>(record.key(), Envelopes.accepted(serdes.writer(),
          Envelopes.of(topic, partition, offset, record.key(), record.value())), at));
    }
  }

  private void refuse(Record<byte[], byte[]> record, int partition, long offset,
      String errorClass, String reason) {
    meters.deadLettered(topic, errorClass);
    context.forward(new Record<>(record.key(), letters.letter(topic, partition, offset,
        record.key(), record.value(), errorClass, Clip.reason(reason, 2_000),
        record.timestamp()), record.timestamp()));
  }
}
