package io.tideline.forecaster;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.GpuSample;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import io.tideline.forecaster.config.ForecastSettings;
import io.tideline.forecaster.query.ForecastQueries;
import io.tideline.forecaster.query.ForecastQueries.ForecastView;
import io.tideline.forecaster.topology.ForecastMeters;
import io.tideline.forecaster.topology.ForecastSerdes;
import io.tideline.forecaster.topology.ForecastStores;
import io.tideline.forecaster.topology.ForecastTopology;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.TidelineInfraResource;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * The service on a real broker and registry: GPU samples and clock ticks go in through the real
 * topics, the forecast comes out of the REST API (interactive queries), and a new Kafka Streams
 * instance with an empty state directory restores the very same forecast from the changelogs.
 */
@QuarkusTest
@QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)
@QuarkusTestResource(value = FreshStateDir.class, restrictToAnnotatedClass = true)
class ForecasterServiceTest {

  static final LocalDate D = LocalDate.parse("2026-11-10");
  static final int GPUS = 20;
  static final int MINUTES = 15;
  /**
   * How long any one condition may take before the test gives up: generous, because the machine
   * is shared (the test waits on conditions, never on time; 120 s ran out under load).
   */
  static final Duration PATIENCE = Duration.ofMinutes(5);

  @Inject KafkaStreams streams;
  @Inject ForecastSettings settings;
  @ConfigProperty(name = "quarkus.kafka-streams.application-id") String applicationId;

  static Instant at(LocalDate day, String time) {
    return LocalDateTime.of(day, LocalTime.parse(time)).toInstant(ZoneOffset.UTC);
  }

  @Test
  void shouldServeTheForecastAndRestoreItFromTheChangelogAfterARestart() throws Exception {
    // 1. Three days of history: chat runs 20 GPUs through the 09:00 slot.
    try (KafkaProducer<byte[], Object> producer = producer()) {
      for (int d = 3; d >= 1; d--) {
        LocalDate day = D.minusDays(d);
        for (int m = 0; m <= MINUTES; m++) { // minute 15 (09:15) closes the slot's last minute
          Instant t = at(day, "09:00").plusSeconds(60L * m + 30);
          for (int g = 0; g < GPUS; g++) {
            send(producer, TopicCatalogue.GPU_TELEMETRY, "chat-gpu-" + g, sample(g, t), t);
          }
        }
      }
      producer.flush();
      // 2. Every sample waits in the kernel's inbox (one per GPU-minute), then a tick decides.
      long expected = 3L * (MINUTES + 1) * GPUS;
      long[] seen = new long[1];
      await(() -> "every GPU-minute reaches the kernel's inbox (" + expected + "; seen "
          + seen[0] + ")", () -> (seen[0] = waitingInputs()) == expected);
      Instant tick = at(D, "00:00:10");
      send(producer, TopicCatalogue.CLUSTER_CLOCK, "default", ClockTick.newBuilder()
          .setCluster("default").setTime(tick).setSequence(1).setIntervalMillis(10_000)
          .setSource(ClockSource.SIMULATED).build(), tick);
      producer.flush();
    }

    // 3. The REST API answers from the stores.
    String nine = at(D, "09:00").toString();
    await("the forecast is served", () -> given().queryParam("at", nine)
        .get("/forecasts/chat").statusCode() == 200
        && given().queryParam("at", nine).get("/forecasts/chat").jsonPath()
            .getInt("samples") == 45);
    double p90 = given().queryParam("at", nine).get("/forecasts/chat").then().statusCode(200)
        .body("slotStart", equalTo(nine))
        .body("reserveGpus", equalTo(20))
        .body("sampleDays", equalTo(3))
        .body("basis", equalTo("REGULAR_HISTORY"))
        .extract().jsonPath().getDouble("p90");
    assertThat(p90).isCloseTo(20.0, withinPercentage(1));
    given().queryParam("date", D.toString()).get("/forecasts/chat/slots/36").then()
        .statusCode(200).body("slotIndex", equalTo(36)).body("samples", equalTo(45));
    given().get("/slotmap").then().statusCode(200)
        .body("classes", hasSize(96)).body("day", equalTo(D.toString()));
    given().queryParam("at", nine).get("/forecasts/nobody").then().statusCode(404);
    given().get("/forecasts/chat").then().statusCode(400);

    // 4. Stop the service's Kafka Streams; start a new instance on an empty state directory.
    ForecastView before = queries(streams).forecast("chat", at(D, "09:00")).orElseThrow();
    var mapBefore = queries(streams).slotMap().orElseThrow();
    Map<String, Map<String, Object>> storesBefore = stores(streams);
    streams.close(Duration.ofSeconds(30));
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG,
        TidelineInfraResource.infra().broker().bootstrapServers());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
    p.put(StreamsConfig.producerPrefix("max.in.flight.requests.per.connection"), 1);
    p.put(StreamsConfig.STATE_DIR_CONFIG,
        Files.createTempDirectory("forecaster-restored-").toString());
    try (KafkaStreams restored = new KafkaStreams(ForecastTopology.build(settings,
        ForecastSerdes.fromRegistry(serde()), new ForecastMeters(new SimpleMeterRegistry())), p)) {
      restored.start();
      ForecastQueries after = queries(restored);
      await("the restored instance serves the forecast",
          () -> quietly(() -> after.forecast("chat", at(D, "09:00"))).isPresent());

      // 5. Same history, same forecast, same slot map: all of it came back from the changelog,
      // every record of every store of the kernel's state.
      assertThat(after.forecast("chat", at(D, "09:00")).orElseThrow()).isEqualTo(before);
      assertThat(after.slotMap().orElseThrow()).isEqualTo(mapBefore);
      assertThat(stores(restored)).isEqualTo(storesBefore);
      assertThat(storesBefore.get(ForecastStores.of("gpus"))).hasSize(GPUS);
      restored.close(Duration.ofSeconds(30));
    }
  }

  private ForecastQueries queries(KafkaStreams instance) {
    return new ForecastQueries(settings, name -> instance.store(
        StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.keyValueStore())));
  }

  /** Every record of every store of the topology, by store and key. */
  private static Map<String, Map<String, Object>> stores(KafkaStreams instance) {
    Map<String, Map<String, Object>> out = new java.util.TreeMap<>();
    for (String name : ForecastStores.all()) {
      Map<String, Object> rows = new java.util.TreeMap<>();
      ReadOnlyKeyValueStore<String, Object> store = quietlyStore(instance, name);
      try (KeyValueIterator<String, Object> it = store.all()) {
        // byte[] (the inbox's envelopes) compared by content
        it.forEachRemaining(kv -> rows.put(kv.key, kv.value instanceof byte[] b
            ? java.nio.ByteBuffer.wrap(b) : kv.value));
      }
      out.put(name, rows);
    }
    return out;
  }

  private static ReadOnlyKeyValueStore<String, Object> quietlyStore(KafkaStreams instance,
      String name) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (true) {
      try {
        return instance.store(StoreQueryParameters.fromNameAndType(name,
            QueryableStoreTypes.keyValueStore()));
      } catch (InvalidStateStoreException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        try {
          Thread.sleep(200);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new AssertionError(ie);
        }
      }
    }
  }

  /** Inputs waiting in the kernel's inbox store. */
  private long waitingInputs() {
    return quietly(() -> {
      ReadOnlyKeyValueStore<String, Object> inbox = streams.store(StoreQueryParameters
          .fromNameAndType(ForecastStores.INBOX, QueryableStoreTypes.keyValueStore()));
      long total = 0;
      try (KeyValueIterator<String, Object> it = inbox.all()) {
        while (it.hasNext()) {
          it.next();
          total++;
        }
      }
      return Optional.of(total);
    }).orElse(-1L);
  }

  private static <T> Optional<T> quietly(Supplier<Optional<T>> query) {
    try {
      return query.get();
    } catch (InvalidStateStoreException e) {
      return Optional.empty();
    }
  }

  private static GpuSample sample(int g, Instant t) {
    return GpuSample.newBuilder().setGpuId("chat-gpu-" + g).setCluster("default")
        .setNodeId("node-" + g / 8).setGpuIndex(g % 8).setSampledAt(t).setState(SampleState.OK)
        .setUtilizationPct(70.0).setServiceId("chat").setJobId("chat-instance-" + g)
        .setSource(SampleSource.SIMULATOR).build();
  }

  private static Map<String, Object> serde() {
    return AvroSerdes.serdeConfig(TidelineInfraResource.infra().registry().url(), true);
  }

  private static KafkaProducer<byte[], Object> producer() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        TidelineInfraResource.infra().broker().bootstrapServers());
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    return new KafkaProducer<>(p, new ByteArraySerializer(), AvroSerdes.valueSerializer(serde()));
  }

  private static void send(KafkaProducer<byte[], Object> producer, String topic, String key,
      Object value, Instant at) {
    producer.send(new ProducerRecord<>(topic, null, at.toEpochMilli(),
        key.getBytes(StandardCharsets.UTF_8), value));
  }

  private static void await(String what, java.util.function.BooleanSupplier condition) {
    await(() -> what, condition);
  }

  private static void await(Supplier<String> what, java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what.get());
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
