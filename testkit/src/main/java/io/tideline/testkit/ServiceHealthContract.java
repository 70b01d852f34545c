package io.tideline.testkit;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;

import org.junit.jupiter.api.Test;

/**
 * What every Tideline service promises once started against a real broker and registry: ready
 * (Kafka and the schema registry both reachable), live, and exposing Prometheus metrics. Each
 * service's {@code ServiceHealthTest} extends this under {@code @QuarkusTest}.
 */
public abstract class ServiceHealthContract {

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

  @Test
  void shouldExposePrometheusMetrics() {
    given().when().get("/q/metrics")
        .then().statusCode(200)
        .body(containsString("jvm_memory_used_bytes"));
  }
}
