package io.tideline.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.admission.SubmissionLimits;
import io.tideline.events.JobSubmitted;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.intake.JobIntake;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.TidelineInfra;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Our events on the wire, against a real broker and a real Apicurio registry: the bytes are the
 * Confluent wire format, and the schema id in them is the one the registry's Confluent-compatible
 * API gives for the subject — so Confluent-serde consumers can read our topics.
 */
class ConfluentWireFormatTest {

  static TidelineInfra infra;
  static Map<String, Object> serde;

  @BeforeAll
  static void start() {
    infra = TidelineInfra.start();
    serde = AvroSerdes.serdeConfig(infra.registry().url(), true);
  }

  @AfterAll
  static void stop() {
    infra.close();
  }

  @Test
  void shouldWriteMagicByteZeroAndTheCcompatSchemaId() {
    String topic = KafkaBroker.unique("jobs.submitted");
    infra.broker().createTopics(topic);
    JobSubmitted job = JobSubmissions.training("job-wire-1")
        .at(Instant.parse("2026-11-02T09:00:00Z")).build();

    produce(topic, job.getJobId(), job);
    byte[] bytes = consumeOne(topic).value();

    assertThat(bytes[0]).as("magic byte").isZero();
    int idInRecord = ByteBuffer.wrap(bytes, 1, 4).getInt();
    String latest = infra.registry().get(
        "/apis/ccompat/v7/subjects/" + topic + "-value/versions/latest");
    Matcher m = Pattern.compile("\"id\"\\s*:\\s*(\\d+)").matcher(latest);
    assertThat(m.find()).as("ccompat answer has an id: %s", latest).isTrue();
    assertThat(idInRecord).isEqualTo(Integer.parseInt(m.group(1)));

    JobSubmitted back = AvroSerdes.<JobSubmitted>valueDeserializer(serde).deserialize(topic, bytes);
    assertThat(back).isEqualTo(job);
  }

  @Test
  void shouldAcceptAWellFormedSubmissionThroughIntake() {
    String topic = KafkaBroker.unique("jobs.submitted");
    infra.broker().createTopics(topic);
    JobSubmitted job = JobSubmissions.training("job-ok").gpus(16).gang(16, 2).build();
    produce(topic, job.getJobId(), job);

    JobIntake.Outcome out = intake().decode(topic, consumeOne(topic).value());

    assertThat(out).isInstanceOfSatisfying(JobIntake.Accepted.class, a -> {
      assertThat(a.request().gpuCount()).isEqualTo(16);
      assertThat(a.request().nodes()).isEqualTo(2);
    });
  }

  @Test
  void shouldRefuseBytesThatAreNotOurAvro() {
    JobIntake.Outcome out = intake().decode("jobs.submitted", "{\"jobId\":\"x\"}".getBytes());
    assertThat(out).isInstanceOfSatisfying(JobIntake.Refused.class, r -> {
      assertThat(r.errorClass()).isEqualTo(DeadLetters.DESERIALIZATION);
      assertThat(r.reason()).contains("not a JobSubmitted");
    });
  }

  @Test
  void shouldRefuseValidAvroWithImpossibleGpus() {
    String topic = KafkaBroker.unique("jobs.submitted");
    infra.broker().createTopics(topic);
    JobSubmitted job = JobSubmissions.training("job-zero").gpus(8).build();
    job.getResources().setGpuCount(0);
    produce(topic, job.getJobId(), job);

    JobIntake.Outcome out = intake().decode(topic, consumeOne(topic).value());

    assertThat(out).isInstanceOfSatisfying(JobIntake.Refused.class, r -> {
      assertThat(r.errorClass()).isEqualTo(DeadLetters.VALIDATION);
      assertThat(r.reason()).contains("job-zero").contains("resources.gpuCount");
    });
  }

  private JobIntake intake() {
    return new JobIntake(AvroSerdes.valueDeserializer(serde), SubmissionLimits.DEFAULTS);
  }

  private void produce(String topic, String key, Object value) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    try (var producer = new KafkaProducer<String, Object>(p, new StringSerializer(),
        AvroSerdes.valueSerializer(serde))) {
      producer.send(new ProducerRecord<>(topic, key, value)).get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private ConsumerRecord<byte[], byte[]> consumeOne(String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("wire-test"));
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (var consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < deadline) {
        for (var r : consumer.poll(Duration.ofMillis(200))) {
          return r;
        }
      }
    }
    throw new AssertionError("no record on " + topic + " within 30 s");
  }
}
