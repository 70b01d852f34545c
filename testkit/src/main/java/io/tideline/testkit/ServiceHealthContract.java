package io.tideline.testkit;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;

import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every Tideline service promises once started against a real broker and registry: ready
 * (Kafka and the schema registry both reachable), live, and exposing Prometheus metrics. Each
 * service's {@code ServiceHealthTest} extends this under {@code @QuarkusTest}.
 */
public abstract class ServiceHealthContract {

  /** How long a service may take after start to become ready (a Streams app's first rebalance). */
  static final Duration SETTLE = Duration.ofSeconds(90);

  /**
   * A Kafka Streams service is ready only once its topology is RUNNING, which follows the app's
   * start by its first rebalance: wait for that (not a timing assertion; the checks below decide).
   */
  @BeforeEach
  void awaitSettled() throws InterruptedException {
    awaitHealthy();
  }

  /**
   * Waits (at most {@link #SETTLE}) until the running service reports ready and live; returns
   * either way, so the caller's own check decides. For tests of a service that do not extend
   * this contract but check its health (e.g. that health needs no token).
   */
  public static void awaitHealthy() throws InterruptedException {
    long deadline = System.nanoTime() + SETTLE.toNanos();
    while (System.nanoTime() < deadline
        && (given().get("/q/health/ready").statusCode() != 200
            || given().get("/q/health/live").statusCode() != 200)) {
      Thread.sleep(200);
    }
  }

  @Test
  void shouldBeReadyWithKafkaAndTheSchemaRegistryUp() {
    given().when().get("/q/health/ready")
        .then().statusCode(200)
        .body("status", equalTo("UP"))
        .body("checks.name", hasItems("schema-registry", "Kafka connection health check"));
  }

  @Test
  void shouldBeLive() {
    given().when().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
  }

  /**
   * Issue #16 finding 1: every service carries the platform's Streams dead-letter handlers and
   * what they need, from the platform's own configuration (a Streams service passes every
   * {@code kafka-streams.*} property to its engine).
   */
  @Test
  void shouldCarryThePlatformsDeadLetterHandlersForKafkaStreams() {
    var config = org.eclipse.microprofile.config.ConfigProvider.getConfig();
    for (String kind : new String[] {"deserialization", "processing", "production"}) {
      String handler = config.getValue("kafka-streams." + kind + ".exception.handler",
          String.class);
      org.junit.jupiter.api.Assertions.assertTrue(
          handler.startsWith("io.tideline.platform.streams.DeadLetter"), kind + ": " + handler);
    }
    org.junit.jupiter.api.Assertions.assertEquals(
        config.getValue("tideline.registry.url", String.class),
        config.getValue("kafka-streams.tideline.registry.url", String.class));
  }

  @Test
  void shouldExposePrometheusMetrics() {
    given().when().get("/q/metrics")
        .then().statusCode(200)
        .body(containsString("jvm_memory_used_bytes"));
  }
}
