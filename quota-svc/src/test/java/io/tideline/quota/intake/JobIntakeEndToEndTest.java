package io.tideline.quota.intake;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tideline.events.DeadLetter;
import io.tideline.events.JobSubmitted;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.TidelineInfra;
import io.tideline.testkit.TidelineInfraResource;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * End to end on a real broker and registry: a producer writes {@code JobSubmitted} Avro events,
 * quota-svc consumes them through the registry; garbage bytes and impossible values go to
 * {@code jobs.submitted.dlq} with the reason, and the service keeps consuming what follows.
 */
@QuarkusTest
@QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)
class JobIntakeEndToEndTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");
  static final String KEY = "same-partition"; // one key: the records keep their order

  @Inject MeterRegistry meters;

  @Test
  void shouldConsumeAValidSubmissionThroughTheRegistry() {
    double before = accepted();
    send(avro(JobSubmissions.training("job-e2e-1").at(T0).build()));
    await("job-e2e-1 accepted", () -> accepted() >= before + 1);
  }

  @Test
  void shouldDeadLetterBadInputWithTheReasonAndKeepConsuming() {
    double acceptedBefore = accepted();
    byte[] garbage = "this is not avro".getBytes(StandardCharsets.UTF_8);
    JobSubmitted negative = JobSubmissions.training("job-negative").at(T0).build();
    negative.getResources().setGpuCount(-2);

    send(garbage);
    send(avro(negative));
    send(avro(JobSubmissions.training("job-after-bad-input").at(T0.plusSeconds(1)).build()));

    await("the valid job after the bad ones is consumed", () -> accepted() >= acceptedBefore + 1);
    List<DeadLetter> letters = deadLetters(2);
    assertThat(letters).hasSize(2);
    DeadLetter notAvro = letters.get(0);
    assertThat(notAvro.getErrorClass()).isEqualTo("DESERIALIZATION");
    assertThat(notAvro.getOriginalTopic()).isEqualTo("jobs.submitted");
    assertThat(notAvro.getService()).isEqualTo("quota-svc");
    assertThat(StandardCharsets.UTF_8.decode(notAvro.getOriginalValue()).toString())
        .isEqualTo("this is not avro");
    DeadLetter invalid = letters.get(1);
    assertThat(invalid.getErrorClass()).isEqualTo("VALIDATION");
    assertThat(invalid.getError()).contains("job-negative")
        .contains("resources.gpuCount: must not be negative, got -2");
    assertThat(invalid.getOffset()).isEqualTo(notAvro.getOffset() + 1);
  }

  private double accepted() {
    var c = meters.find("tideline.intake.records").tag("outcome", "accepted").counter();
    return c == null ? 0 : c.count();
  }

  private static Map<String, Object> serde() {
    return AvroSerdes.serdeConfig(TidelineInfraResource.infra().registry().url(), true);
  }

  private static byte[] avro(JobSubmitted job) {
    Serializer<JobSubmitted> s = AvroSerdes.valueSerializer(serde());
    return s.serialize("jobs.submitted", job);
  }

  private static void send(byte[] value) {
    TidelineInfra infra = TidelineInfraResource.infra();
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    try (var producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      producer.send(new ProducerRecord<>("jobs.submitted", KEY.getBytes(StandardCharsets.UTF_8),
          value)).get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static List<DeadLetter> deadLetters(int expected) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        TidelineInfraResource.infra().broker().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("dlq-reader"));
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<DeadLetter> out = new ArrayList<>();
    try (var consumer = new KafkaConsumer<String, DeadLetter>(p, new StringDeserializer(),
        AvroSerdes.valueDeserializer(serde()))) {
      consumer.subscribe(List.of("jobs.submitted.dlq"));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (out.size() < expected && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> out.add(r.value()));
      }
    }
    return out;
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
