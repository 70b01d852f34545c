package io.tideline.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The testkit's own promise: what it starts is a working broker and a working registry. */
class RealInfrastructureTest {

  static TidelineInfra infra;

  @BeforeAll
  static void start() {
    infra = TidelineInfra.start();
  }

  @AfterAll
  static void stop() {
    infra.close();
  }

  @Test
  void shouldStartABrokerThatStoresAndServesRecords() {
    if (System.getenv("KAFKA_BOOTSTRAP_SERVERS") == null) {
      assertThat(infra.broker().kind()).isIn(KafkaBroker.Kind.IN_JVM, KafkaBroker.Kind.CONTAINER);
    }
    String topic = KafkaBroker.unique("testkit.roundtrip");
    infra.broker().createTopics(topic + ":3");

    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      producer.send(new ProducerRecord<>(topic, "gpu-0", "hello")).get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }

    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("testkit"));
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    ConsumerRecord<String, String> got = null;
    try (var consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (got == null && System.nanoTime() < deadline) {
        for (var r : consumer.poll(Duration.ofMillis(200))) {
          got = r;
        }
      }
    }
    assertThat(got).isNotNull();
    assertThat(got.key()).isEqualTo("gpu-0");
    assertThat(got.value()).isEqualTo("hello");
  }

  @Test
  void shouldStartARegistryServingBothItsOwnAndTheConfluentApi() {
    assertThat(infra.registry().get("/apis/registry/v2/system/info")).contains("\"name\"");
    assertThat(infra.registry().get("/apis/ccompat/v7/subjects")).startsWith("[");
  }

  @Test
  void shouldSayHowToProvisionTheRegistryWhenItIsMissing() {
    String before = System.getProperty("tideline-home");
    System.setProperty("tideline-home", "/nonexistent/tideline-home");
    try {
      assertThatThrownBy(SchemaRegistryServer::runnerJar)
          .hasMessageContaining("./mvnw -B -pl deploy/local install");
    } finally {
      if (before == null) {
        System.clearProperty("tideline-home");
      } else {
        System.setProperty("tideline-home", before);
      }
    }
  }

  @Test
  void shouldGiveDistinctNamesForAReusedBroker() {
    assertThat(KafkaBroker.unique("t")).isNotEqualTo(KafkaBroker.unique("t"));
  }
}
