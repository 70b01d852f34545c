package io.tideline.preemption;

import io.tideline.platform.security.ProducerStamp;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tideline.events.GpuAssignment;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.PreemptionRequest;
import io.tideline.events.PreemptionTrigger;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.SwitchPath;
import io.tideline.events.Verdict;
import io.tideline.events.Victim;
import io.tideline.platform.TidelineConfig;
import io.tideline.platform.security.Provenance;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.KafkaBroker;
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
 * preemption-svc through the real broker and registry: inventory, placement decisions, lifecycle
 * facts, submissions and quota verdicts build its view; placement's request is answered on
 * {@code preemption.decisions} with victims and rule trace, and the REST API lists and explains
 * the decision.
 *
 * <p>Issue #16 finding 11 (over 100 s under load), two causes in the fixture: (1) it built a new
 * registry serializer for every record it sent — each a new registry client with its own Vert.x
 * instance, never closed, and an empty cache, so each record registered its schema again (and,
 * before ADR 0013, every nested type as a reference subject): at load 20 producing the 14 records
 * took 6.9 s that way and 3.2 s with one serializer; (2) it started the scenario before the
 * service's Streams engine was RUNNING, so the 90 s wait for the view also had to absorb the
 * engine's start (CREATED to RUNNING took 10 s at load 20, after a 67 s application start). One
 * serializer now serves the whole test, and the scenario starts once the service is ready, so its
 * waits measure the scenario only.
 */
@QuarkusTest
@QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)
class PreemptionServiceTest {

  static final Instant T11 = Instant.parse("2026-11-02T11:00:00Z");
  static final Instant T14 = Instant.parse("2026-11-02T14:00:00Z");

  @Inject TidelineConfig tideline;

  /** The one registry serializer of the test: each schema is looked up and registered once. */
  private static Serializer<Object> serializer;

  @org.junit.jupiter.api.AfterAll
  static void closeSerializer() {
    if (serializer != null) {
      serializer.close();
    }
  }

  @Test
  void shouldAnswerPlacementsRequestWithADecisionAndExplainIt() throws Exception {
    awaitReady();
    String c = tideline.cluster();
    PreemptionDecision pd;
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      // 1. the fleet: two 8-GPU nodes, each held by an old preemptible training job
      for (String n : List.of("n01", "n02")) {
        send(producer, TopicCatalogue.CLUSTER_INVENTORY, n, NodeInventory.newBuilder()
            .setCluster(c).setNodeId(n).setChange(NodeChange.JOINED).setObservedAt(T11)
            .setGpuModel("H100").setGpuMemoryMiB(81920).setGpuCount(8)
            .setSwitchPath(SwitchPath.newBuilder().setAccessSwitch("asw1")
                .setAggregationSwitch("psw1").setCoreSwitch("dsw1").build()).build(), T11);
      }
      JobSubmitted a = JobSubmissions.training("e2e-train-a").at(T11).build();
      JobSubmitted b = JobSubmissions.training("e2e-train-b").at(T11).build();
      JobSubmitted inf = JobSubmissions.onlineInference("e2e-inf", "search", 1.0).gpus(8)
          .gang(8, 1).at(T14).build();
      admit(producer, a, false);
      admit(producer, b, false);
      admit(producer, inf, true);
      placed(producer, c, "e2e-train-a", "n01", 1);
      placed(producer, c, "e2e-train-b", "n02", 2);
      lifecycle(producer, c, "e2e-train-a", LifecycleType.CHECKPOINTED,
          Instant.parse("2026-11-02T13:58:00Z"));
      lifecycle(producer, c, "e2e-train-b", LifecycleType.CHECKPOINTED,
          Instant.parse("2026-11-02T13:30:00Z"));
      // 2. the cluster clock ticks (ADR 0008: inputs are folded at ticks, in whatever order the
      //    intake logged them); wait until the view holds it all
      ticking(producer, c, T14);
      await("the view holds 2 nodes, 3 jobs, 3 verdicts, 2 running jobs and 2 fact lines", () -> {
        var view = given().get("/view");
        if (view.statusCode() != 200) {
          return false; // 503 "view store not ready" while the stream task restores or rebalances
        }
        Map<String, Object> v = view.then().extract().jsonPath()
            .getMap(c.replace(".", "\\."));
        return v != null && Integer.valueOf(2).equals(v.get("nodes"))
            && Integer.valueOf(3).equals(v.get("jobs"))
            && Integer.valueOf(3).equals(v.get("admissions"))
            && Integer.valueOf(2).equals(v.get("bindings"))
            && Integer.valueOf(2).equals(v.get("facts"));
      });
      // 3. placement asks for room for the online scale-up
      String requestId = c + "/preempt/e2e-inf/v2";
      send(producer, TopicCatalogue.PREEMPTION_REQUESTS, c, PreemptionRequest.newBuilder()
          .setRequestId(requestId).setCluster(c).setPreemptorJobId("e2e-inf")
          .setPreemptorClass(inf.getWorkloadClass()).setShape(inf.getResources())
          .setTrigger(PreemptionTrigger.UNPLACEABLE).setLedgerVersion(2).setRequestedAt(T14)
          .build(), T14);
      pd = decisionFor(requestId(c));
    } finally {
      if (ticker != null) {
        ticker.interrupt();
      }
    }

    assertThat(pd.getOutcome()).isEqualTo(PreemptionOutcome.PREEMPT);
    assertThat(pd.getVictims()).extracting(Victim::getJobId).containsExactly("e2e-train-a");
    assertThat(pd.getLedgerVersion()).isEqualTo(2);
    assertThat(pd.getPolicyVersion()).isEqualTo("preemption-v1");
    assertThat(pd.getTrigger()).isEqualTo("UNPLACEABLE");
    assertThat(pd.getTrace()).anyMatch(e -> e.getSubject().equals("e2e-train-b")
        && e.getOutcome().equals("SKIP"));

    given().get("/decisions?limit=5").then().statusCode(200)
        .body("decisionId", org.hamcrest.Matchers.hasItem(pd.getDecisionId()));
    String explained = given().get("/decisions/" + pd.getDecisionId()).then().statusCode(200)
        .extract().asString();
    assertThat(explained).contains("PREEMPT for e2e-inf").contains("e2e-train-a")
        .contains("Rule trace:");
    given().get("/decisions/no/such/decision").then().statusCode(404);
    given().get("/decisions?limit=0").then().statusCode(400);
  }

  private static String requestId(String c) {
    return c + "/preempt/e2e-inf/v2";
  }

  // ------------------------------------------------------------------ helpers

  private static Map<String, Object> serde() {
    return AvroSerdes.serdeConfig(TidelineInfraResource.infra().registry().url(), true);
  }

  private static KafkaProducer<byte[], byte[]> producer() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        TidelineInfraResource.infra().broker().bootstrapServers());
    ProducerStamp.configureAsOwners(p); // each input as its real producer stamps it (ADR 0029)
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static void send(KafkaProducer<byte[], byte[]> producer, String topic, String key,
      Object value, Instant at) throws Exception {
    if (serializer == null) {
      serializer = AvroSerdes.valueSerializer(serde());
    }
    producer.send(new ProducerRecord<>(topic, null, at.toEpochMilli(),
        key.getBytes(StandardCharsets.UTF_8), serializer.serialize(topic, value))).get();
  }

  /** The service is ready once Kafka and the registry answer and its Streams engine runs. */
  private static void awaitReady() throws InterruptedException {
    await("preemption-svc ready (Kafka, registry, Streams RUNNING)",
        () -> given().get("/q/health/ready").statusCode() == 200
            && given().get("/q/health/live").statusCode() == 200);
  }

  private static void admit(KafkaProducer<byte[], byte[]> producer, JobSubmitted job,
      boolean right) throws Exception {
    send(producer, TopicCatalogue.JOBS_SUBMITTED, job.getJobId(), job, job.getSubmittedAt());
    send(producer, TopicCatalogue.QUOTA_VERDICTS, job.getJobId(), QuotaVerdict.newBuilder()
        .setJobId(job.getJobId()).setTenant(job.getTenant()).setQueue("search/ranking")
        .setDecidedAt(job.getSubmittedAt()).setVerdict(Verdict.GUARANTEED).setGpus(8)
        .setPreemptible(job.getPreemptible()).setPreemptionRightGranted(right)
        .setReason("e2e").setPolicyVersion("q1").build(), job.getSubmittedAt());
  }

  private static void placed(KafkaProducer<byte[], byte[]> producer, String c, String job,
      String node, long version) throws Exception {
    List<GpuAssignment> as = new ArrayList<>();
    for (int g = 0; g < 8; g++) {
      as.add(new GpuAssignment(node, g, 1.0));
    }
    send(producer, TopicCatalogue.PLACEMENT_LEDGER, c, io.tideline.events.LedgerChange
        .newBuilder().setCluster(c).setVersion(version).setAt(T11)
        .setChange(new io.tideline.events.LedgerBound(job, as, java.util.Map.of())).build(), T11);
  }

  private Thread ticker;

  /** A clock on {@code cluster.clock}: a tick every 100 ms of wall time, 1 ms of cluster time. */
  private void ticking(KafkaProducer<byte[], byte[]> producer, String c, Instant from) {
    ticker = new Thread(() -> {
      Instant t = from;
      try {
        while (!Thread.currentThread().isInterrupted()) {
          tick(producer, c, t);
          t = t.plusMillis(1);
          Thread.sleep(100);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    ticker.setDaemon(true);
    ticker.start();
  }

  private static void tick(KafkaProducer<byte[], byte[]> producer, String c, Instant at)
      throws Exception {
    send(producer, TopicCatalogue.CLUSTER_CLOCK, c, io.tideline.events.ClockTick.newBuilder()
        .setCluster(c).setTime(at).setSequence(at.getEpochSecond()).setIntervalMillis(60_000)
        .setSource(io.tideline.events.ClockSource.SIMULATED).build(), at);
  }

  private static void lifecycle(KafkaProducer<byte[], byte[]> producer, String c, String job,
      LifecycleType type, Instant at) throws Exception {
    send(producer, TopicCatalogue.JOBS_LIFECYCLE, job, JobLifecycle.newBuilder().setJobId(job)
        .setCluster(c).setType(type).setOccurredAt(at).setAssignments(List.of()).setProgress(null)
        .setCheckpointAt(null).setCacheWarm(null).setThroughput(null).setDecisionId(null)
        .setMessage(null).build(), at);
  }

  private static PreemptionDecision decisionFor(String requestId) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        TidelineInfraResource.infra().broker().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("decision-reader"));
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    try (var consumer = new KafkaConsumer<String, PreemptionDecision>(p, new StringDeserializer(),
        AvroSerdes.valueDeserializer(serde()))) {
      consumer.subscribe(List.of(TopicCatalogue.PREEMPTION_DECISIONS));
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (System.nanoTime() < deadline) {
        for (var r : consumer.poll(Duration.ofMillis(200))) {
          if (r.value().getRequestId().equals(requestId)) {
            // stamped by the Streams producer with its owner (ADR 0029): what placement checks
            assertThat(Provenance.stamp(r.headers())).as("tideline-producer of the decision")
                .isEqualTo("preemption-svc");
            return r.value();
          }
        }
      }
    }
    throw new AssertionError("no decision for " + requestId + " on preemption.decisions");
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(200);
    }
  }
}
