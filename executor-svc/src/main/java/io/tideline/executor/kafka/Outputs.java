package io.tideline.executor.kafka;

import io.tideline.platform.security.Identity;
import io.tideline.platform.security.ProducerStamp;
import io.tideline.events.DeadLetter;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * What the executor writes to Kafka, each write acknowledged by the broker before the executor
 * goes on ({@code acks=all}, idempotent): submissions, lifecycle facts, its open-jobs log
 * ({@value #EXECUTOR_JOBS}) and dead letters.
 */
public final class Outputs implements AutoCloseable {

  /**
   * The executor's open jobs (compacted, key job id): the submission it published, a tombstone
   * when the job is over. What lets replacement pods rejoin their job after a restart.
   */
  public static final String EXECUTOR_JOBS = "executor.jobs";
  /** Pods that cannot become a job: the pod as JSON, with the reason. */
  public static final String PODS_DLQ = "executor.pods.dlq";

  private final KafkaProducer<String, Object> producer;
  private final String service;

  public Outputs(String bootstrap, Map<String, Object> serdeConfig, Map<String, Object> extra,
      String service) {
    Map<String, Object> p = new HashMap<>(serdeConfig);
    p.putAll(extra);
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, service + "-outputs");
    // jobs.lifecycle, jobs.submitted, executor.jobs: written as the executor (ADR 0029), the
    // owner their consumers check
    ProducerStamp.configure(p, Identity.EXECUTOR.user());
    this.producer = new KafkaProducer<>(p, new StringSerializer(),
        AvroSerdes.valueSerializer(serdeConfig));
    this.service = service;
  }

  public void submitted(JobSubmitted job) {
    send(TopicCatalogue.JOBS_SUBMITTED, job.getJobId(), job);
    send(EXECUTOR_JOBS, job.getJobId(), job);
  }

  public void lifecycle(JobLifecycle l) {
    send(TopicCatalogue.JOBS_LIFECYCLE, l.getJobId(), l);
  }

  /** The job is over for the executor: its entry in the open-jobs log goes. */
  public void closed(String jobId) {
    send(EXECUTOR_JOBS, jobId, null);
  }

  /** Parks a pod that cannot become a job: its JSON as the value, the reason beside it. */
  public void deadPod(String podKey, String podJson, String reason, long createdAtMillis) {
    DeadLetter letter = DeadLetters.envelope("kubernetes/pods", -1, -1,
        podKey.getBytes(StandardCharsets.UTF_8), podJson.getBytes(StandardCharsets.UTF_8),
        DeadLetters.VALIDATION, reason, service, createdAtMillis);
    send(PODS_DLQ, podKey, letter);
  }

  /** Parks an order record that cannot be read, on {@code <topic>.dlq}. */
  public void deadRecord(String topic, int partition, long offset, byte[] key, byte[] value,
      String errorClass, String reason, long timestamp) {
    DeadLetter letter = DeadLetters.envelope(topic, partition, offset, key, value, errorClass,
        reason, service, timestamp);
    send(topic + ".dlq", key == null ? null : new String(key, StandardCharsets.UTF_8), letter);
  }

  private void send(String topic, String key, Object value) {
    try {
      producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while writing to " + topic, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("could not write to " + topic + ": " + e, e);
    }
  }

  @Override
  public void close() {
    producer.close(java.time.Duration.ofSeconds(5));
  }
}
