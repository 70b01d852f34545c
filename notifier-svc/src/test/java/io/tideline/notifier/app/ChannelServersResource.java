package io.tideline.notifier.app;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Starts the real servers the notices go to: a GreenMail SMTP server and a WireMock HTTP server
 * standing for Slack's incoming webhooks, and points the notifier and its test users at them.
 *
 * <p>Webhooks: {@code /hooks/carol} fails twice (500, 503) then accepts; {@code /hooks/dave}
 * always answers 500; every other {@code /hooks/*} accepts.
 */
public class ChannelServersResource implements QuarkusTestResourceLifecycleManager {

  static GreenMail smtp;
  static WireMockServer slack;

  @Override
  public Map<String, String> start() {
    smtp = new GreenMail(ServerSetupTest.SMTP.dynamicPort());
    smtp.start();
    slack = new WireMockServer(WireMockConfiguration.options().dynamicPort().bindAddress("127.0.0.1"));
    slack.start();
    slack.stubFor(post(urlPathMatching("/hooks/.*")).atPriority(10)
        .willReturn(aResponse().withStatus(200).withBody("ok")));
    slack.stubFor(post(urlPathEqualTo("/hooks/dave")).atPriority(1)
        .willReturn(aResponse().withStatus(500).withBody("internal_error")));
    slack.stubFor(post(urlPathEqualTo("/hooks/carol")).atPriority(1).inScenario("flaky")
        .whenScenarioStateIs(Scenario.STARTED).willSetStateTo("one failure")
        .willReturn(aResponse().withStatus(500).withBody("internal_error")));
    slack.stubFor(post(urlPathEqualTo("/hooks/carol")).atPriority(1).inScenario("flaky")
        .whenScenarioStateIs("one failure").willSetStateTo("two failures")
        .willReturn(aResponse().withStatus(503).withBody("service_unavailable")));
    slack.stubFor(post(urlPathEqualTo("/hooks/carol")).atPriority(1).inScenario("flaky")
        .whenScenarioStateIs("two failures")
        .willReturn(aResponse().withStatus(200).withBody("ok")));

    Map<String, String> c = new HashMap<>();
    String hooks = "http://127.0.0.1:" + slack.port() + "/hooks/";
    c.put("quarkus.mailer.host", "127.0.0.1");
    c.put("quarkus.mailer.port", String.valueOf(smtp.getSmtp().getPort()));
    c.put("notifier.slack.webhook-url", hooks + "default");
    c.put("notifier.slack.min-interval", "100ms");
    c.put("notifier.retry.max-attempts", "3");
    c.put("notifier.retry.initial-backoff", "50ms");
    c.put("notifier.poll-timeout", "100ms");
    user(c, "alice", "EMAIL,SLACK", "alice@example.com", null, "U0ALICE", "en", "Europe/Berlin", false);
    user(c, "bob", "SLACK", "bob@example.com", hooks + "bob", null, "zh-CN", "Asia/Shanghai", false);
    user(c, "carol", "SLACK", null, hooks + "carol", null, "en", "UTC", false);
    user(c, "dave", "SLACK", null, hooks + "dave", null, "en", "UTC", false);
    user(c, "erin", "SLACK", null, hooks + "erin", null, "en", "UTC", false);
    user(c, "frank", "EMAIL,SLACK", "frank@example.com", hooks + "frank", null, "en", "UTC", true);
    user(c, "hank", "SLACK", null, hooks + "hank", null, "en", "UTC", false);
    user(c, "ivan", "EMAIL,SLACK", "ivan@example.com", hooks + "ivan", null, "en", "UTC", false);
    user(c, "judy", "SLACK", null, hooks + "judy", null, "en", "UTC", false);
    // NoticeJoinEndToEndTest's users
    for (String u : List.of("kate", "leo", "mia", "noah", "rex", "sol", "uma")) {
      user(c, u, "SLACK", null, hooks + u, null, "en", "UTC", false);
    }
    user(c, "pia", "EMAIL,SLACK", "pia@example.com", hooks + "pia", null, "en", "Europe/Berlin",
        false);
    user(c, "qiu", "SLACK", null, hooks + "qiu", null, "zh-CN", "Asia/Shanghai", false);
    return c;
  }

  private static void user(Map<String, String> c, String id, String channels, String email,
      String hook, String slackUser, String locale, String zone, boolean digest) {
    String p = "notifier.users.\"" + id + "\".";
    c.put(p + "channels", channels);
    if (email != null) {
      c.put(p + "email", email);
    }
    if (hook != null) {
      c.put(p + "slack-webhook-url", hook);
    }
    if (slackUser != null) {
      c.put(p + "slack-user-id", slackUser);
    }
    c.put(p + "locale", locale);
    c.put(p + "zone", zone);
    c.put(p + "digest", String.valueOf(digest));
  }

  @Override
  public void stop() {
    if (slack != null) {
      slack.stop();
    }
    if (smtp != null) {
      smtp.stop();
    }
  }
}
