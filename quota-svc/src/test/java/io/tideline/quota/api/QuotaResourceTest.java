package io.tideline.quota.api;

import io.tideline.platform.security.ProducerStamp;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.notNullValue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.tideline.events.JobLifecycle;
import io.tideline.events.LifecycleType;
import io.tideline.events.SlotForecast;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.TidelineInfraResource;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The REST read API of a running quota-svc (real broker, registry and Streams app; the bootstrap
 * definition {@code quota/definition.yaml} is in force): a job's verdict, a tenant's quota, the
 * tree with usage and a day's bill, all answered from the single writer's stores. The writer
 * decides on clock ticks: each scenario sends its records, then a tick after them (the ticks of
 * the class only move forward, whatever order its tests run in).
 */
@QuarkusTest
@QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)
class QuotaResourceTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");
  /** The cluster clock of this class's running service, after every event the tests send. */
  static final java.util.concurrent.atomic.AtomicLong CLOCK = new java.util.concurrent.atomic
      .AtomicLong(Instant.parse("2026-11-02T11:00:00Z").toEpochMilli());

  /** A tick after everything sent so far. */
  static void tick() {
    Instant at = Instant.ofEpochMilli(CLOCK.addAndGet(1000));
    send(TopicCatalogue.CLUSTER_CLOCK, "default", io.tideline.events.ClockTick.newBuilder()
        .setCluster("default").setTime(at).setSequence(at.getEpochSecond())
        .setIntervalMillis(1000).setSource(io.tideline.events.ClockSource.SIMULATED).build());
  }

  @Test
  void shouldAnswerVerdictTenantTreeAndBillingFromTheStores() {
    send(TopicCatalogue.JOBS_SUBMITTED, "rest-g1",
        JobSubmissions.training("rest-g1").gpus(4).at(T0).build());
    tick();

    awaitOk("/quota/jobs/rest-g1/verdict")
        .then().body("verdict", equalTo("GUARANTEED"))
        .body("queue", equalTo("acme/search/ranking/training"))
        .body("policyVersion", equalTo("quota-rules-2/local-2"))
        .body("reason", equalTo("within the guarantee of acme/search/ranking/training: "
            + "non-preemptible"))
        .body("trace.rule", hasItem("Q2 guaranteed floor"));

    given().get("/quota/tenants/search").then().statusCode(200)
        .body("businessLine.path", equalTo("acme/search"))
        .body("businessLine.usedGuaranteedGpus", equalTo(4.0f))
        .body("nodes.find { it.path == 'acme/search/ranking/training' }.usedGuaranteedGpus",
            equalTo(4.0f))
        .body("nodes.find { it.path == 'acme/search/ranking/training' }.runningJobs", equalTo(1));

    given().get("/quota/tree").then().statusCode(200)
        .body("fleetGpus", equalTo(6776.0f))
        .body("nodes[0].path", equalTo("acme"))
        .body("nodes[0].borrowCapGpus", equalTo(null))
        .body("poolGpus", notNullValue());

    send(TopicCatalogue.JOBS_LIFECYCLE, "rest-g1", lifecycle(LifecycleType.STARTED,
        Instant.parse("2026-11-02T09:30:00Z")));
    send(TopicCatalogue.JOBS_LIFECYCLE, "rest-g1", lifecycle(LifecycleType.COMPLETED,
        Instant.parse("2026-11-02T10:30:00Z")));
    tick();
    // Peak 09:30–10:00 at 1.2 and flat 10:00–10:30 at 0.6, reserved 30% off, 4 GPUs: 1.68 + 0.84.
    awaitOk("/quota/billing/search/2026-11-02")
        .then().body("amount", equalTo(2.52f))
        .body("gpuSeconds", equalTo(14400.0f))
        .body("pieces", equalTo(2))
        .body("currency", equalTo("CU"));
  }

  @Test
  void shouldShowTheFloorInForceOnceAServicesPeakIsKnown() {
    tick(); // the bootstrap definition comes into force on the first tick
    awaitOk("/quota/tree");
    String inference = "nodes.find { it.path == 'acme/search/ranking/inference' }.guaranteedGpus";
    given().get("/quota/tree").then().statusCode(200).body(inference, equalTo(1600.0f));

    send(TopicCatalogue.FORECAST_SLOTS, "search-api", SlotForecast.newBuilder()
        .setServiceId("search-api").setSlotStart(T0).setSlotEnd(T0.plusSeconds(900))
        .setHoliday(false).setSlotClass(io.tideline.events.SlotClass.PEAK).setP50(1500).setP90(2800).setP95(2900).setP99(3000)
        .setHistoricalPeak(3000).setSampleDays(14).setComputedAt(T0).build());
    tick();

    // ceil(0.7 × 3000) = 2100 replaces the bootstrap 1600; ranking grows to 2100 + 1600.
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (given().get("/quota/tree").then().extract().path(inference) instanceof Float f
        && f == 1600.0f && System.nanoTime() < deadline) {
      pause();
    }
    given().get("/quota/tree").then().statusCode(200)
        .body(inference, equalTo(2100.0f))
        .body("nodes.find { it.path == 'acme/search/ranking' }.guaranteedGpus", equalTo(3700.0f));
  }

  private static void pause() {
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Test
  void shouldSayNotFoundOrBadRequestClearly() {
    awaitServing();
    given().get("/quota/tenants/nobody").then().statusCode(404)
        .body("error", equalTo("no tenant 'nobody'"));
    given().get("/quota/jobs/never-submitted/verdict").then().statusCode(404);
    given().get("/quota/billing/search/yesterday").then().statusCode(400)
        .body("error", equalTo("day must be YYYY-MM-DD, got yesterday"));
  }

  private static JobLifecycle lifecycle(LifecycleType type, Instant at) {
    return JobLifecycle.newBuilder().setJobId("rest-g1").setCluster("default").setType(type)
        .setOccurredAt(at).build();
  }

  /** Until the Streams app runs, the stores answer 503. */
  private static void awaitServing() {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (given().get("/quota/tenants/search").statusCode() == 503
        && System.nanoTime() < deadline) {
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  private static Response awaitOk(String path) {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (true) {
      Response r = given().get(path);
      if (r.statusCode() == 200 || System.nanoTime() > deadline) {
        r.then().statusCode(200);
        return r;
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  private static void send(String topic, String key, SpecificRecord value) {
    var infra = TidelineInfraResource.infra();
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    ProducerStamp.configureAsOwners(p); // each input as its real producer stamps it (ADR 0029)
    try (var producer = new KafkaProducer<String, SpecificRecord>(p, new StringSerializer(),
        AvroSerdes.valueSerializer(AvroSerdes.serdeConfig(infra.registry().url(), true)))) {
      producer.send(new ProducerRecord<>(topic, key, value)).get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
