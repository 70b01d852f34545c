package io.tideline.notifier.app;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.oneOf;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.specification.RequestSpecification;
import io.tideline.platform.security.DevTokens;
import io.tideline.testkit.ServiceHealthContract;
import io.tideline.testkit.TidelineInfraResource;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The notifier's REST endpoints with bearer tokens on (tideline.rest.auth.mode=TOKEN, ADR 0026):
 * real signed JWTs verified by smallrye-jwt against a key pair made for the test, on a real
 * broker and registry. Nobody can send a notice to another user or point their webhook anywhere;
 * health and metrics stay open.
 */
@QuarkusTest
@TestProfile(RestTokenAuthTest.TokenMode.class)
@QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)
class RestTokenAuthTest {

  @Inject NotifierService service;

  /** TOKEN mode, verifying with the build's test key. */
  public static class TokenMode implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return DevTokens.forBuild().serviceConfig();
    }
  }

  /** A token of {@code user} in {@code groups}, valid for an hour from now (the verifier's clock). */
  static String token(String user, String... groups) {
    return DevTokens.forBuild().mint(user, List.of(groups), Instant.now(), Duration.ofHours(1));
  }

  static RequestSpecification as(String token) {
    return given().header("Authorization", "Bearer " + token).contentType("application/json");
  }

  static String quotaRequest(String id, String user) {
    return "{\"requestId\":\"" + id + "\",\"userId\":\"" + user + "\",\"tenant\":\"search\","
        + "\"jobId\":\"" + user + "-job-1\",\"gpus\":8,\"requestedAt\":\"2026-11-07T10:05:00Z\"}";
  }

  @Test
  void shouldRefuseAQuotaRequestWithoutATokenWith401() {
    given().contentType("application/json").body(quotaRequest("qr-anon", "alice"))
        .post("/quota-requests").then().statusCode(401)
        .header("WWW-Authenticate", containsString("Bearer"))
        .body("error", containsString("authentication required"));
  }

  @Test
  void shouldRefuseATokenSignedByAnotherKeyOrExpiredWith401() {
    DevTokens.Keys forger = DevTokens.generate(Path.of("target", "forger-keys"),
        DevTokens.LOCAL_ISSUER);
    String forged = forger.mint("alice", List.of(), Instant.now(), Duration.ofHours(1));
    as(forged).body(quotaRequest("qr-forged", "alice")).post("/quota-requests").then()
        .statusCode(401);
    String expired = DevTokens.forBuild().mint("alice", List.of(), Instant.now().minus(Duration.ofHours(2)),
        Duration.ofHours(1));
    as(expired).body(quotaRequest("qr-expired", "alice")).post("/quota-requests").then()
        .statusCode(401);
  }

  @Test
  void shouldRefuseAQuotaRequestForAnotherUserWith403() {
    as(token("mallory", "tenant:search")).body(quotaRequest("qr-spam", "alice"))
        .post("/quota-requests").then().statusCode(403)
        .body("error", equalTo("mallory may request quota only for themselves, not for alice"));
  }

  @Test
  void shouldAcceptAQuotaRequestWithAValidTokenOfTheUser() {
    awaitRestored();
    as(token("alice", "tenant:search")).body(quotaRequest("qr-alice", "alice")).post("/quota-requests").then()
        .statusCode(202).body("noticeId", containsString("quota-request:qr-alice"));
  }

  @Test
  void shouldLetOnlyTheUserOrAnOperatorSetTheirWebhook() {
    String entry = "{\"channels\":[\"SLACK\"],\"slackWebhookUrl\":"
        + "\"https://hooks.example.com/services/T0/B0/x\",\"zoneId\":\"UTC\"}";
    given().contentType("application/json").body(entry).put("/directory/alice").then()
        .statusCode(401);
    as(token("mallory", "tenant:search")).body(entry).put("/directory/alice").then()
        .statusCode(403).body("error", containsString("only their own directory entry"));
  }

  @Test
  void shouldRefuseALoopbackOrLinkLocalWebhookWith400() {
    String alice = token("alice", "tenant:search");
    as(alice).body("{\"channels\":[\"SLACK\"],\"slackWebhookUrl\":"
        + "\"https://127.0.0.2:8186/quota-requests\",\"zoneId\":\"UTC\"}")
        .put("/directory/alice").then().statusCode(400)
        .body("errors[0]", containsString("'127.0.0.2' is a loopback address"));
    as(alice).body("{\"channels\":[\"SLACK\"],\"slackWebhookUrl\":"
        + "\"https://localhost/hook\",\"zoneId\":\"UTC\"}")
        .put("/directory/alice").then().statusCode(400)
        .body("errors[0]", containsString("loopback"));
    as(token("olga", "tideline-operators")).body("{\"channels\":[\"SLACK\"],\"slackWebhookUrl\":"
        + "\"https://169.254.169.254/latest/meta-data\",\"zoneId\":\"UTC\"}")
        .put("/directory/alice").then().statusCode(400)
        .body("errors[0]", containsString("link-local"));
  }

  @Test
  void shouldKeepHealthAndMetricsOpen() throws InterruptedException {
    given().get("/q/health/live").then().statusCode(not(oneOf(401, 403)));
    ServiceHealthContract.awaitHealthy(); // the engine may still be starting on a loaded machine
    given().get("/q/health/live").then().statusCode(200);
    given().get("/q/metrics").then().statusCode(200);
    given().get("/q/health").then().statusCode(not(401));
  }

  private void awaitRestored() {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (service.engine() == null || !service.engine().restored()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("gave up waiting for the notifier's engine to restore");
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
