package io.tideline.executor;

import io.tideline.events.DeadLetter;
import io.tideline.events.JobSubmitted;
import io.tideline.executor.kafka.Outputs;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.validation.RecordIntake;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.jboss.logging.Logger;

/**
 * Reads the executor's open-jobs log ({@value Outputs#EXECUTOR_JOBS}) to its end, at lead start.
 *
 * <p>Each record goes through the platform's {@link RecordIntake} like every other input: a
 * {@code JobSubmitted} within the platform's bounds whose key is its job id opens the job, a
 * tombstone closes it. Anything else (not our Avro, a schema this executor cannot read, a record
 * outside the bounds, a key that is not the job id, a tombstone without a key) is dead-lettered on
 * {@value #DLQ} with the reason, and the leader starts with the other jobs: one bad record never
 * keeps the executor from leading. A compacted log keeps such a record until its key gets a newer
 * value, so every lead start reads it again; it is parked <em>once</em>: the letters already on
 * {@value #DLQ} (same partition and offset) are read first and not written again.
 */
final class OpenJobs {

  /** Where records of the open-jobs log that cannot be used are parked. */
  static final String DLQ = Outputs.EXECUTOR_JOBS + ".dlq";

  private static final Logger LOG = Logger.getLogger(OpenJobs.class);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(120);

  private OpenJobs() {}

  /**
   * The open jobs by id.
   *
   * @param intake the platform's decoding and checks
   * @param out where a refused record's dead letter goes (acknowledged before the next record)
   * @param meters counts each dead letter written
   */
  static Map<String, JobSubmitted> load(String bootstrap, Map<String, Object> extra,
      Map<String, Object> serdeConfig, RecordIntake intake, Outputs out, ExecutorMeters meters) {
    Set<String> parked = parkedAlready(bootstrap, extra, serdeConfig);
    Map<String, JobSubmitted> open = new TreeMap<>();
    readToEnd(bootstrap, extra, Outputs.EXECUTOR_JOBS, r -> {
      String key = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
      RecordIntake.Outcome o = intake.read(r.topic(), r.key(), r.value(), r.timestamp(),
          JobSubmitted.class);
      String errorClass = null;
      String reason = null;
      if (o instanceof RecordIntake.Tombstone) {
        open.remove(key); // the job is over
      } else if (o instanceof RecordIntake.Refused refused) {
        errorClass = refused.errorClass();
        reason = refused.reason();
      } else if (o instanceof RecordIntake.Accepted a && a.event() instanceof JobSubmitted j) {
        if (j.getJobId().equals(key)) {
          open.put(key, j);
        } else {
          errorClass = DeadLetters.VALIDATION;
          reason = "the key of an open job is its job id: key " + key + " holds job "
              + j.getJobId();
        }
      }
      if (reason == null) {
        return;
      }
      if (parked.contains(where(r.partition(), r.offset()))) {
        LOG.debugf("%s-%d@%d is already parked on %s", r.topic(), r.partition(), r.offset(), DLQ);
        return;
      }
      LOG.errorf("%s-%d@%d (key %s) cannot be used and is parked on %s: %s", r.topic(),
          r.partition(), r.offset(), key, DLQ, reason);
      out.deadRecord(r.topic(), r.partition(), r.offset(), r.key(), r.value(), errorClass,
          reason, r.timestamp());
      meters.deadLetter(DLQ);
    });
    return open;
  }

  /** The records of the open-jobs log already parked, as partition@offset. */
  private static Set<String> parkedAlready(String bootstrap, Map<String, Object> extra,
      Map<String, Object> serdeConfig) {
    Deserializer<Object> letters = AvroSerdes.valueDeserializer(serdeConfig);
    Set<String> parked = new HashSet<>();
    readToEnd(bootstrap, extra, DLQ, r -> {
      Object v;
      try {
        v = r.value() == null ? null : letters.deserialize(r.topic(), r.value());
      } catch (RuntimeException e) {
        v = null; // not a letter: nothing to remember (operators read the topic themselves)
      }
      if (v instanceof DeadLetter d && Outputs.EXECUTOR_JOBS.equals(d.getOriginalTopic())) {
        parked.add(where(d.getPartition(), d.getOffset()));
      }
    });
    return parked;
  }

  private static String where(int partition, long offset) {
    return partition + "@" + offset;
  }

  /** Hands every record of {@code topic}, from its beginning to its current end, to {@code each}. */
  private static void readToEnd(String bootstrap, Map<String, Object> extra, String topic,
      Consumer<ConsumerRecord<byte[], byte[]>> each) {
    Map<String, Object> p = new HashMap<>(extra);
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      List<TopicPartition> parts = c.partitionsFor(topic, Duration.ofSeconds(30))
          .stream().map(i -> new TopicPartition(i.topic(), i.partition())).toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not read " + topic + " to its end in "
              + READ_TIMEOUT.toSeconds() + " s");
        }
        c.poll(Duration.ofMillis(200)).forEach(each);
      }
    }
  }
}
