package io.tideline.preemption.view;

import io.tideline.core.admission.SubmissionLimits;
import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockTick;
import io.tideline.events.DeadLetter;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PreemptionRequest;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaVerdict;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.intake.JobIntake;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.jboss.logging.Logger;

/**
 * First stage: reads every input as raw bytes, so no record can stop the stream. Each record is
 * decoded (submissions through the platform's {@link JobIntake}, the path every consumer of
 * {@code jobs.submitted} shares) and checked for what would make the view fail later; a refused
 * record becomes a dead letter on {@code <topic>.dlq} with the reason, in the same exactly-once
 * transaction as its offset, and an accepted one is wrapped in an {@link Envelope} and re-keyed to
 * its cluster, so one view task sees all of a cluster's inputs in one order.
 */
final class IntakeProcessor implements Processor<byte[], byte[], byte[], Out> {

  private static final Logger LOG = Logger.getLogger(IntakeProcessor.class);

  private final PreemptionPolicy policy;
  private final PreemptionTopology.Avro avro;
  private ProcessorContext<byte[], Out> context;
  private Deserializer<Object> deserializer;
  private JobIntake intake;

  IntakeProcessor(PreemptionPolicy policy, PreemptionTopology.Avro avro) {
    this.policy = policy;
    this.avro = avro;
  }

  @Override
  public void init(ProcessorContext<byte[], Out> context) {
    this.context = context;
    this.deserializer = avro.deserializer();
    this.intake = new JobIntake(typed(avro.deserializer()), SubmissionLimits.DEFAULTS);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Deserializer<JobSubmitted> typed(Deserializer<Object> d) {
    return (Deserializer) d;
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    RecordMetadata meta = context.recordMetadata().orElseThrow();
    Input input = Input.of(meta.topic());
    if (input == null) {
      refuse(record, meta, DeadLetters.VALIDATION, "not an input of preemption: " + meta.topic());
      return;
    }
    // 1. decode and check; 2. refuse with the reason, or 3. forward re-keyed to the cluster
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
        event = record.value() == null ? null
            : deserializer.deserialize(meta.topic(), record.value());
      } catch (RuntimeException e) {
        refuse(record, meta, DeadLetters.DESERIALIZATION,
            "not Avro in the registry's wire format: " + e.getMessage());
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
    byte[] envelope = new Envelope(input, meta.partition(), meta.offset(), record.value())
        .encode();
    context.forward(new Record<>(cluster.getBytes(StandardCharsets.UTF_8),
        new Out(PreemptionTopology.VIEW_INPUT, envelope), record.timestamp()));
  }

  /** Why the view could not use the event, or {@code null} when it can. */
  static String check(Input input, Object event) {
    Class<?> expected = switch (input) {
      case INVENTORY -> NodeInventory.class;
      case SUBMITTED -> JobSubmitted.class;
      case VERDICT -> QuotaVerdict.class;
      case LIFECYCLE -> JobLifecycle.class;
      case RESERVATION -> CapacityReservation.class;
      case CLOCK -> ClockTick.class;
      case PLACEMENT -> PlacementDecision.class;
      case REQUEST -> PreemptionRequest.class;
      case RECLAIM -> QuotaReclaim.class;
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
    } else if (event instanceof CapacityReservation c) {
      if (!(c.getGpus() >= 0) || c.getGpus() > 1_000_000) {
        return "reservation " + c.getReservationId() + ": gpus must be in [0, 1e6], got "
            + c.getGpus();
      }
      if (c.getValidUntil().isBefore(c.getValidFrom())) {
        return "reservation " + c.getReservationId() + ": validUntil is before validFrom";
      }
    } else if (event instanceof PreemptionRequest r) {
      if (r.getRequestId().isBlank() || r.getPreemptorJobId().isBlank()) {
        return "preemption request without a request id or preemptor job id";
      }
      if (r.getLedgerVersion() < 0) {
        return "request " + r.getRequestId() + ": ledgerVersion must not be negative, got "
            + r.getLedgerVersion();
      }
      if (r.getShape() == null || r.getShape().getGpuCount() <= 0) {
        return "request " + r.getRequestId() + ": the shape needs at least one GPU";
      }
    } else if (event instanceof PlacementDecision d) {
      for (var a : d.getAssignments()) {
        if (!(a.getShare() > 0) || a.getShare() > 1 || a.getGpuIndex() < 0) {
          return "decision " + d.getDecisionId() + ": assignment " + a.getNodeId() + "/"
              + a.getGpuIndex() + " with share " + a.getShare() + " outside (0, 1]";
        }
      }
    } else if (event instanceof QuotaReclaim q) {
      if (q.getCurrentGpus() < 0 || q.getRecommendedGpus() < 0) {
        return "reclaim of " + q.getJobId() + ": GPU counts must not be negative";
      }
    }
    return null;
  }

  private String clusterOf(Object event) {
    String c = null;
    if (event instanceof NodeInventory n) {
      c = n.getCluster();
    } else if (event instanceof JobLifecycle l) {
      c = l.getCluster();
    } else if (event instanceof ClockTick t) {
      c = t.getCluster();
    } else if (event instanceof PlacementDecision d) {
      c = d.getCluster();
    } else if (event instanceof PreemptionRequest r) {
      c = r.getCluster();
    }
    return c == null || c.isBlank() ? policy.defaultCluster() : c;
  }

  private void refuse(Record<byte[], byte[]> record, RecordMetadata meta, String errorClass,
      String reason) {
    LOG.warnf("%s %d@%d dead-lettered (%s): %s", meta.topic(), meta.partition(), meta.offset(),
        errorClass, reason);
    context.forward(new Record<>(record.key(), letter(avro.serializer(), context.applicationId(),
        meta.topic(), meta.partition(), meta.offset(), record.key(), record.value(), errorClass,
        reason, record.timestamp()), record.timestamp()));
  }

  /** The serialized dead letter, addressed to {@code topic + ".dlq"}. */
  static Out letter(Serializer<Object> serializer, String service, String topic, int partition,
      long offset, byte[] key, byte[] value, String errorClass, String reason, long timestamp) {
    DeadLetter letter = DeadLetters.envelope(topic, partition, offset, key, value, errorClass,
        reason, service, timestamp);
    String dlq = topic + ".dlq";
    return new Out(dlq, serializer.serialize(dlq, letter));
  }
}
