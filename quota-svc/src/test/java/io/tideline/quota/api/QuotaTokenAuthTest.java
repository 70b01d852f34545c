package io.tideline.quota.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
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
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Quota and billing reads with bearer tokens on (ADR 0026), on a running quota-svc: a tenant's
 * quota and bill only for its members and operators, the whole tree and job verdicts only for
 * operators. Real JWTs signed with a key pair made for the test, verified by smallrye-jwt.
 */
@QuarkusTest
@TestProfile(QuotaTokenAuthTest.TokenMode.class)
@QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)
class QuotaTokenAuthTest {

  /** TOKEN mode, verifying with the build's test key. */
  public static class TokenMode implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return DevTokens.forBuild().serviceConfig();
    }
  }

  /** A request with a token of {@code user} in {@code groups}, valid an hour from now. */
  static RequestSpecification as(String user, String... groups) {
    return given().header("Authorization", "Bearer " + DevTokens.forBuild()
        .mint(user, List.of(groups), Instant.now(), Duration.ofHours(1)));
  }

  @Test
  void shouldRefuseATenantReadWithoutATokenWith401() {
    given().get("/quota/tenants/search").then().statusCode(401);
    given().get("/quota/billing/search/2026-11-02").then().statusCode(401);
  }

  @Test
  void shouldScopeATenantsQuotaAndBillToItsMembers() {
    as("mallory", "tenant:ads").get("/quota/tenants/search").then().statusCode(403)
        .body("error", equalTo("mallory is not a member of tenant search (group tenant:search)"
            + " nor in tideline-operators"));
    as("mallory", "tenant:ads").get("/quota/billing/search/2026-11-02").then().statusCode(403);
    // A member (and an operator) is past the guard: the answer is the store's (data or 404).
    as("alice", "tenant:search").get("/quota/tenants/search").then()
        .statusCode(is(oneOf(200, 404, 503)));
    as("olga", "tideline-operators").get("/quota/billing/search/2026-11-02").then()
        .statusCode(is(oneOf(200, 404, 503)));
  }

  @Test
  void shouldKeepTheTreeAndVerdictsForOperators() {
    as("alice", "tenant:search").get("/quota/tree").then().statusCode(403)
        .body("error", containsString("the quota tree is for operators"));
    as("alice", "tenant:search").get("/quota/jobs/alice-job-1/verdict").then().statusCode(403);
    as("olga", "tideline-operators").get("/quota/tree").then()
        .statusCode(is(oneOf(200, 404, 503)));
  }

  /**
   * Health needs no token: it answers at once without 401 or 403, and reports live (200) once
   * the Streams engine runs (awaited: on a loaded machine the engine may still be starting when
   * the first test runs, liveness 503 until then).
   */
  @Test
  void shouldKeepHealthOpen() throws InterruptedException {
    given().get("/q/health/live").then().statusCode(not(oneOf(401, 403)));
    ServiceHealthContract.awaitHealthy();
    given().get("/q/health/live").then().statusCode(200);
  }
}
