package io.tideline.quota.intake;

import io.smallrye.reactive.messaging.annotations.Blocking;
import io.tideline.events.JobSubmitted;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.intake.IntakeConfig;
import io.tideline.platform.intake.JobIntake;
import io.tideline.platform.serde.AvroSerdes;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Reads {@code jobs.submitted} as raw bytes, so that nothing — not even a record that is not Avro —
 * can stop the stream: each record is decoded and checked by {@link JobIntake}; a refused record
 * is parked on {@code jobs.submitted.dlq} with the reason before its offset is acknowledged, and
 * the next record is read.
 *
 * <p>Accepted submissions are where admission (three-tier quota verdicts, issue #5) starts; until
 * it lands they are counted and logged, nothing more is claimed.
 */
@ApplicationScoped
public class JobIntakeConsumer {

  private static final Logger LOG = Logger.getLogger(JobIntakeConsumer.class);

  private final JobIntake intake;
  private final DeadLetters deadLetters;
  private final IntakeMeters meters;

  public JobIntakeConsumer(AvroSerdes serdes, IntakeConfig config, DeadLetters deadLetters,
      IntakeMeters meters) {
    this.intake = new JobIntake(serdes.<JobSubmitted>valueDeserializer(), config.limits());
    this.deadLetters = deadLetters;
    this.meters = meters;
  }

  @Incoming("jobs-submitted")
  @Blocking(ordered = true)
  public void onSubmission(ConsumerRecord<byte[], byte[]> record) {
    JobIntake.Outcome outcome = intake.decode(record.topic(), record.value());
    if (outcome instanceof JobIntake.Accepted a) {
      meters.accepted(record.topic());
      LOG.debugf("accepted %s (%s, %d GPUs) from %s-%d@%d", a.event().getJobId(),
          a.request().workloadClass(), a.request().gpuCount(), record.topic(),
          record.partition(), record.offset());
    } else if (outcome instanceof JobIntake.Refused r) {
      // 1. park it with the reason (waits for the broker), 2. count it, 3. the ack follows.
      deadLetters.park(record, r.errorClass(), r.reason());
      meters.deadLettered(record.topic(), r.errorClass());
      LOG.warnf("dead-lettered %s-%d@%d: %s", record.topic(), record.partition(),
          record.offset(), r.reason());
    }
  }
}
