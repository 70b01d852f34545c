package io.tideline.executor;

import io.tideline.events.JobSubmitted;
import io.tideline.executor.kafka.Outputs;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.validation.RecordIntake;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * Reads the executor's open-jobs log ({@value Outputs#EXECUTOR_JOBS}) to its end, at lead start.
 * Only the executor writes it; a record it cannot read (not our Avro, not a {@code JobSubmitted})
 * is skipped with an error in the log rather than stopping the leader from starting.
 */
final class OpenJobs {

  private static final Logger LOG = Logger.getLogger(OpenJobs.class);

  private OpenJobs() {}

  static Map<String, JobSubmitted> load(String bootstrap, Map<String, Object> extra,
      Map<String, Object> serdeConfig) {
    Map<String, Object> p = new HashMap<>(extra);
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    Map<String, JobSubmitted> open = new TreeMap<>();
    Deserializer<Object> values = AvroSerdes.valueDeserializer(serdeConfig);
    try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(),
        new ByteArrayDeserializer())) {
      List<TopicPartition> parts = c.partitionsFor(Outputs.EXECUTOR_JOBS, Duration.ofSeconds(30))
          .stream().map(i -> new TopicPartition(i.topic(), i.partition())).toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not read " + Outputs.EXECUTOR_JOBS
              + " to its end in 120 s");
        }
        c.poll(Duration.ofMillis(200)).forEach(r -> {
          if (r.value() == null) {
            open.remove(r.key()); // the job is over
            return;
          }
          Object v;
          try {
            v = values.deserialize(r.topic(), r.value());
          } catch (RuntimeException e) {
            v = e;
          }
          if (v instanceof JobSubmitted j) {
            open.put(r.key(), j);
          } else {
            LOG.errorf("%s-%d@%d (key %s) is not a JobSubmitted and is skipped: %s", r.topic(),
                r.partition(), r.offset(), r.key(), v instanceof RuntimeException e
                    ? RecordIntake.rootMessage(e) : String.valueOf(v));
          }
        });
      }
    }
    return open;
  }
}
