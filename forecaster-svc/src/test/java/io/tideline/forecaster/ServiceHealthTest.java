package io.tideline.forecaster;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tideline.testkit.ServiceHealthContract;
import io.tideline.testkit.TidelineInfraResource;
import org.junit.jupiter.api.Test;

/**
 * forecaster-svc starts against a real broker and registry and reports healthy with metrics,
 * its Kafka Streams topology included.
 */
@QuarkusTest
@QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)
@QuarkusTestResource(value = FreshStateDir.class, restrictToAnnotatedClass = true)
class ServiceHealthTest extends ServiceHealthContract {

  @Test
  void shouldReportTheKafkaStreamsTopologyLive() {
    given().when().get("/q/health/live")
        .then().statusCode(200)
        .body("status", equalTo("UP"))
        .body("checks.name", hasItem("Kafka Streams state health check"));
  }
}
