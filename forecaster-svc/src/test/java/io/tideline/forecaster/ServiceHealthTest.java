package io.tideline.forecaster;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tideline.testkit.ServiceHealthContract;
import io.tideline.testkit.TidelineInfraResource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * forecaster-svc starts against a real broker and registry and reports healthy with metrics,
 * its Kafka Streams topology included.
 */
@QuarkusTest
@QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)
@QuarkusTestResource(value = FreshStateDir.class, restrictToAnnotatedClass = true)
class ServiceHealthTest extends ServiceHealthContract {

  /**
   * Kafka Streams is live once RUNNING, which follows the app's start by its first rebalance
   * (seconds on this broker): wait for that before the contract's checks, up to a minute.
   */
  @BeforeEach
  void awaitTheTopologyRunning() throws InterruptedException {
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(60).toNanos();
    while (given().get("/q/health/live").statusCode() != 200 && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
  }

  @Test
  void shouldReportTheKafkaStreamsTopologyLive() {
    given().when().get("/q/health/live")
        .then().statusCode(200)
        .body("status", equalTo("UP"))
        .body("checks.name", hasItem("Kafka Streams state health check"));
  }
}
