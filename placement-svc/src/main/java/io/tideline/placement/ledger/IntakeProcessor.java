package io.tideline.placement.ledger;

import io.tideline.core.admission.SubmissionLimits;
import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockTick;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeInventory;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.SlotForecast;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.intake.JobIntake;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * First stage of the ledger topology: reads every input as raw bytes, so nothing can stop the
 * stream. Each record is decoded (submissions through the platform's {@link JobIntake}, the one
 * path every consumer of {@code jobs.submitted} shares) and checked for what would make the ledger
 * fail later; a refused record becomes a dead letter on {@code <topic>.dlq} with the reason — in
 * the same exactly-once transaction as everything else — and an accepted one is wrapped in an
 * {@link Envelope} and re-keyed to its cluster, so one ledger task sees all of a cluster's inputs
 * in one order.
 */
final class IntakeProcessor implements Processor<byte[], byte[], byte[], Out> {

  private final LedgerPolicy policy;
  private final PlacementTopology.Serdes2 avro;
  private final PlacementMeters meters;
  private ProcessorContext<byte[], Out> context;
  private Deserializer<Object> deserializer;
  private JobIntake intake;
  private DeadLetterWriter letters;

  IntakeProcessor(LedgerPolicy policy, PlacementTopology.Serdes2 avro, PlacementMeters meters) {
    this.policy = policy;
    this.avro = avro;
    this.meters = meters;
  }

  @Override
  public void init(ProcessorContext<byte[], Out> context) {
    this.context = context;
    this.deserializer = avro.deserializer();
    this.intake = new JobIntake(JobIntakes.typed(avro.deserializer()), SubmissionLimits.DEFAULTS);
    this.letters = new DeadLetterWriter(avro.serializer(), context.applicationId());
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    RecordMetadata meta = context.recordMetadata().orElseThrow();
    Input input = Input.of(meta.topic());
    if (input == null) {
      refuse(record, meta, DeadLetters.VALIDATION, "not an input of placement: " + meta.topic());
      return;
    }
    // 1. decode and check; 2. refuse with the reason or 3. forward re-keyed to the cluster
    String cluster;
    if (input == Input.SUBMITTED) {
      JobIntake.Outcome o = intake.decode(meta.topic(), record.value());
      if (o instanceof JobIntake.Refused r) {
        refuse(record, meta, r.errorClass(), r.reason());
        return;
      }
      cluster = policy.defaultCluster();
    } else {
      Object event;
      try {
        event = record.value() == null ? null : deserializer.deserialize(meta.topic(), record.value());
      } catch (RuntimeException e) {
        refuse(record, meta, DeadLetters.DESERIALIZATION, "not Avro in the registry's wire format: "
            + e.getMessage());
        return;
      }
      String problem = check(input, event);
      if (problem != null) {
        refuse(record, meta, event == null ? DeadLetters.DESERIALIZATION : DeadLetters.VALIDATION,
            problem);
        return;
      }
      cluster = clusterOf(event);
    }
    byte[] envelope = new Envelope(input, meta.partition(), meta.offset(), record.value()).encode();
    context.forward(new Record<>(cluster.getBytes(StandardCharsets.UTF_8),
        new Out(PlacementTopology.LEDGER_INPUT, envelope), record.timestamp()));
  }

  /** Why the ledger could not use the event, or {@code null} when it can. */
  private static String check(Input input, Object event) {
    Class<?> expected = switch (input) {
      case INVENTORY -> NodeInventory.class;
      case SUBMITTED -> JobSubmitted.class;
      case VERDICT -> QuotaVerdict.class;
      case LIFECYCLE -> JobLifecycle.class;
      case RESERVATION -> CapacityReservation.class;
      case CLOCK -> ClockTick.class;
      case FORECAST -> SlotForecast.class;
      case PREEMPTION_DECISION -> PreemptionDecision.class;
    };
    if (!expected.isInstance(event)) {
      return "expected a " + expected.getSimpleName() + ", got "
          + (event == null ? "null" : event.getClass().getName());
    }
    if (event instanceof NodeInventory n) {
      if (n.getGpuCount() <= 0) {
        return "node " + n.getNodeId() + ": gpuCount must be positive, got " + n.getGpuCount();
      }
      if (n.getNodeId().isBlank()) {
        return "node id is blank";
      }
    } else if (event instanceof QuotaVerdict v) {
      if (!(v.getFairShareUsage() >= 0) || Double.isInfinite(v.getFairShareUsage())) {
        return "verdict of " + v.getJobId() + ": fairShareUsage must be finite and not negative, got "
            + v.getFairShareUsage();
      }
    } else if (event instanceof CapacityReservation c) {
      if (!(c.getGpus() >= 0) || c.getGpus() > 1_000_000) {
        return "reservation " + c.getReservationId() + ": gpus must be in [0, 1e6], got "
            + c.getGpus();
      }
      if (c.getValidUntil().isBefore(c.getValidFrom())) {
        return "reservation " + c.getReservationId() + ": validUntil is before validFrom";
      }
    }
    return null;
  }

  private String clusterOf(Object event) {
    if (event instanceof NodeInventory n) {
      return n.getCluster();
    } else if (event instanceof JobLifecycle l) {
      return l.getCluster();
    } else if (event instanceof ClockTick t) {
      return t.getCluster();
    } else if (event instanceof PreemptionDecision d) {
      return d.getCluster();
    }
    return policy.defaultCluster();
  }

  private void refuse(Record<byte[], byte[]> record, RecordMetadata meta, String errorClass,
      String reason) {
    meters.deadLettered(meta.topic(), errorClass);
    context.forward(new Record<>(record.key(), letters.letter(meta.topic(), meta.partition(),
        meta.offset(), record.key(), record.value(), errorClass, reason, record.timestamp()),
        record.timestamp()));
  }
}
