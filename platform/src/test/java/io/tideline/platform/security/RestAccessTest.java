package io.tideline.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.platform.security.RestAccess.Outcome;
import org.junit.jupiter.api.Test;

/** Who may call which REST operation, as the organisation's tokens name users and groups. */
class RestAccessTest {

  private static final RestAccess TOKEN = new RestAccess(RestAccess.Mode.TOKEN,
      "tideline-operators", "tenant:");
  private static final RestAccess OPEN = new RestAccess(RestAccess.Mode.OPEN,
      "tideline-operators", "tenant:");

  private static final RestCaller ALICE = RestCaller.of("alice", "tenant:search");
  private static final RestCaller MALLORY = RestCaller.of("mallory", "tenant:ads");
  private static final RestCaller OPS = RestCaller.of("olga", "tideline-operators");

  @Test
  void shouldLetAUserRequestQuotaOnlyForThemselves() {
    assertThat(TOKEN.requestQuota(ALICE, "alice").outcome()).isEqualTo(Outcome.ALLOWED);
    RestAccess.Verdict spam = TOKEN.requestQuota(MALLORY, "alice");
    assertThat(spam.outcome()).isEqualTo(Outcome.FORBIDDEN);
    assertThat(spam.reason()).contains("mallory may request quota only for themselves");
  }

  @Test
  void shouldNotLetAnOperatorRequestQuotaOnSomeoneElsesBehalf() {
    assertThat(TOKEN.requestQuota(OPS, "alice").outcome()).isEqualTo(Outcome.FORBIDDEN);
  }

  @Test
  void shouldAskForATokenWhenThereIsNone() {
    RestAccess.Verdict v = TOKEN.requestQuota(null, "alice");
    assertThat(v.outcome()).isEqualTo(Outcome.UNAUTHENTICATED);
    assertThat(v.reason()).contains("Bearer");
    assertThat(TOKEN.authenticated(null).outcome()).isEqualTo(Outcome.UNAUTHENTICATED);
    assertThat(TOKEN.authenticated(ALICE).allowed()).isTrue();
  }

  @Test
  void shouldScopeATenantsQuotaAndBillToItsMembersAndOperators() {
    assertThat(TOKEN.readTenant(ALICE, "search").allowed()).isTrue();
    assertThat(TOKEN.readTenant(OPS, "search").allowed()).isTrue();
    RestAccess.Verdict nosy = TOKEN.readTenant(MALLORY, "search");
    assertThat(nosy.outcome()).isEqualTo(Outcome.FORBIDDEN);
    assertThat(nosy.reason()).contains("not a member of tenant search (group tenant:search)");
  }

  @Test
  void shouldLetOnlyTheUserOrAnOperatorRedirectTheirNotices() {
    assertThat(TOKEN.writeDirectory(ALICE, "alice").allowed()).isTrue();
    assertThat(TOKEN.writeDirectory(OPS, "alice").allowed()).isTrue();
    assertThat(TOKEN.writeDirectory(MALLORY, "alice").outcome()).isEqualTo(Outcome.FORBIDDEN);
  }

  @Test
  void shouldKeepFleetWideViewsForOperators() {
    assertThat(TOKEN.readFleet(OPS, "the quota tree").allowed()).isTrue();
    RestAccess.Verdict v = TOKEN.readFleet(ALICE, "the quota tree");
    assertThat(v.outcome()).isEqualTo(Outcome.FORBIDDEN);
    assertThat(v.reason()).contains("the quota tree is for operators");
  }

  @Test
  void shouldAllowEverythingOnTheOpenLocalStack() {
    assertThat(OPEN.requestQuota(null, "alice").allowed()).isTrue();
    assertThat(OPEN.readTenant(null, "search").allowed()).isTrue();
    assertThat(OPEN.writeDirectory(MALLORY, "alice").allowed()).isTrue();
    assertThat(OPEN.readFleet(null, "decisions").allowed()).isTrue();
    assertThat(OPEN.authenticated(null).allowed()).isTrue();
  }
}
