package io.tideline.platform.streams;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.DeadLetter;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.TidelineInfra;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The platform's Streams exception handlers on a real broker and registry, with exactly-once on
 * as in every service: a record whose processing throws, and one whose output cannot be
 * serialized, are each dead-lettered with the reason on {@code streams.dlq}, and the engine stays
 * RUNNING and handles the next record (issue #16: no poison pill). An output the broker refuses
 * (2 MB, over the producer's 1 MB limit) poisons the exactly-once transaction: the record is
 * dead-lettered and the engine stops (health DOWN) rather than lose it — which is why every input
 * is bounded before any processor sees it (ADR 0012).
 */
class StreamsExceptionHandlersTest {

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
  void shouldDeadLetterAThrowingAndAnUnserializableRecordAndGoOnWithTheNext() throws Exception {
    String in = KafkaBroker.unique("handlers-in");
    String out = KafkaBroker.unique("handlers-out");
    infra.broker().createTopics(in, out, StreamsDeadLetters.FALLBACK);

    StreamsBuilder b = new StreamsBuilder();
    org.apache.kafka.common.serialization.Serializer<String> picky = (topic, v) -> {
      if (v.equals("UNWRITABLE")) {
        throw new org.apache.kafka.common.errors.SerializationException("cannot write " + v);
      }
      return v.getBytes(StandardCharsets.UTF_8);
    };
    b.stream(in, Consumed.with(Serdes.String(), Serdes.String()))
        .mapValues(v -> {
          if (v.equals("poison")) {
            throw new IllegalStateException("cannot handle " + v);
          }
          return v.toUpperCase();
        })
        .to(out, Produced.with(Serdes.String(), Serdes.serdeFrom(picky,
            new org.apache.kafka.common.serialization.StringDeserializer())));
    try (KafkaStreams streams = new KafkaStreams(b.build(), props())) {
      streams.start();
      produce(in, "a", "first", "poison", "unwritable", "last");

      List<String> outputs = new ArrayList<>();
      List<DeadLetter> letters = new ArrayList<>();
      await(in, out, outputs, letters, 2, 2);

      assertThat(outputs).containsExactly("FIRST", "LAST");
      assertThat(letters).extracting(DeadLetter::getErrorClass)
          .containsExactlyInAnyOrder("PROCESSING", "PRODUCTION");
      assertThat(letters).allSatisfy(l -> assertThat(l.getService()).isEqualTo("handlers-test"));
      DeadLetter processing = letters.stream()
          .filter(l -> l.getErrorClass().equals("PROCESSING")).findFirst().orElseThrow();
      assertThat(processing.getError()).contains("IllegalStateException").contains("poison");
      assertThat(StandardCharsets.UTF_8.decode(processing.getOriginalValue()).toString())
          .isEqualTo("poison");
      DeadLetter production = letters.stream()
          .filter(l -> l.getErrorClass().equals("PRODUCTION")).findFirst().orElseThrow();
      assertThat(production.getError()).contains("could not serialize the value for " + out)
          .contains("cannot write UNWRITABLE");
      assertThat(StandardCharsets.UTF_8.decode(production.getOriginalValue()).toString())
          .isEqualTo("unwritable");
      assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
    }
  }

  @Test
  void shouldDeadLetterAnOutputTheBrokerRefusesAndStopRatherThanLoseIt() throws Exception {
    String in = KafkaBroker.unique("handlers-big-in");
    String out = KafkaBroker.unique("handlers-big-out");
    infra.broker().createTopics(in, out, StreamsDeadLetters.FALLBACK);
    StreamsBuilder b = new StreamsBuilder();
    b.stream(in, Consumed.with(Serdes.String(), Serdes.String()))
        .mapValues(v -> v.equals("huge") ? "x".repeat(2_000_000) : v)
        .to(out, Produced.with(Serdes.String(), Serdes.String()));
    try (KafkaStreams streams = new KafkaStreams(b.build(), props())) {
      streams.start();
      produce(in, "a", "huge");
      List<DeadLetter> letters = new ArrayList<>();
      await(in, out, new ArrayList<>(), letters, 0, 1);
      assertThat(letters.get(0).getError()).contains("could not write to " + out)
          .contains("RecordTooLarge");
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (streams.state() != KafkaStreams.State.ERROR && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(streams.state()).as("an exactly-once engine cannot skip a refused write")
          .isEqualTo(KafkaStreams.State.ERROR);
    }
  }

  private static Properties props() throws java.io.IOException {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, KafkaBroker.unique("handlers-app"));
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    p.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("handlers").toString());
    p.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
        DeadLetterDeserializationHandler.class);
    p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG,
        DeadLetterProcessingHandler.class);
    p.put(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG,
        DeadLetterProductionHandler.class);
    p.put("tideline.registry.url", infra.registry().url());
    p.put("tideline.service", "handlers-test");
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    return p;
  }

  private static void await(String in, String out, List<String> outputs, List<DeadLetter> letters,
      int outputsExpected, int lettersExpected) {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    try (var outC = consumer(new StringDeserializer());
        var dlqC = consumer(new ByteArrayDeserializer())) {
      outC.subscribe(List.of(out));
      dlqC.subscribe(List.of(StreamsDeadLetters.FALLBACK));
      Deserializer<DeadLetter> avro = AvroSerdes.valueDeserializer(
          AvroSerdes.serdeConfig(infra.registry().url(), false));
      while (System.nanoTime() < deadline
          && (outputs.size() < outputsExpected || letters.size() < lettersExpected)) {
        outC.poll(Duration.ofMillis(200)).forEach(r -> outputs.add(r.value()));
        for (ConsumerRecord<String, byte[]> r : dlqC.poll(Duration.ofMillis(200))) {
          DeadLetter l = avro.deserialize(r.topic(), r.value());
          if (l.getOriginalTopic().equals(in)) {
            letters.add(l);
          }
        }
      }
    }
  }

  private static void produce(String topic, String key, String... values) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      for (String v : values) {
        producer.send(new ProducerRecord<>(topic, key, v)).get();
      }
    }
  }

  private static <V> KafkaConsumer<String, V> consumer(Deserializer<V> values) {
    return new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        infra.broker().bootstrapServers(), ConsumerConfig.GROUP_ID_CONFIG,
        KafkaBroker.unique("handlers-check"), ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), new StringDeserializer(), values);
  }
}
