package io.tideline.executor;

import io.tideline.events.JobSubmitted;
import io.tideline.executor.kafka.Outputs;
import io.tideline.platform.serde.AvroSerdes;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads the executor's open-jobs log ({@value Outputs#EXECUTOR_JOBS}) to its end, at lead start. */
final class OpenJobs {

  private OpenJobs() {}

  static Map<String, JobSubmitted> load(String bootstrap, Map<String, Object> extra,
      Map<String, Object> serdeConfig) {
    Map<String, Object> p = new HashMap<>(extra);
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    Map<String, JobSubmitted> open = new TreeMap<>();
    try (KafkaConsumer<String, Object> c = new KafkaConsumer<>(p, new StringDeserializer(),
        AvroSerdes.valueDeserializer(serdeConfig))) {
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
          if (r.value() instanceof JobSubmitted j) {
            open.put(r.key(), j);
          } else {
            open.remove(r.key());
          }
        });
      }
    }
    return open;
  }
}
