package io.tideline.platform.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Where a user's webhook may point: outside the network Tideline runs in, unless an operator
 * listed the host. Names are looked up by a resolver the scenarios give (no real DNS).
 */
class WebhookTargetsTest {

  private static final EventValidator DEFAULTS = new EventValidator(InputBounds.DEFAULTS);

  /** A resolver that knows exactly these names (and, as the JDK's, IP literals). */
  private static WebhookTargets.Resolver names(Map<String, String> names) {
    return host -> {
      if (WebhookTargets.isLiteral(host)) {
        return WebhookTargets.LITERALS.addresses(host);
      }
      String ip = names.get(host);
      if (ip == null) {
        throw new UnknownHostException(host);
      }
      return List.of(InetAddress.getByName(ip));
    };
  }

  @Test
  void shouldRefuseALoopbackWebhookAndSayWhy() {
    assertThat(DEFAULTS.webhookProblem("https://127.0.0.1:8183/quota-requests"))
        .contains("'127.0.0.1' is a loopback address")
        .contains("tideline.intake.webhook-internal-hosts");
    assertThat(DEFAULTS.webhookProblem("https://[::1]/hook")).contains("loopback");
    assertThat(DEFAULTS.webhookProblem("https://localhost/hook")).contains("loopback");
    assertThat(DEFAULTS.webhookProblem("https://api.localhost/hook")).contains("loopback");
  }

  @Test
  void shouldRefuseLinkLocalPrivateUnspecifiedAndMulticastTargets() {
    assertThat(DEFAULTS.webhookProblem("https://169.254.169.254/latest/meta-data"))
        .contains("link-local");
    assertThat(DEFAULTS.webhookProblem("https://10.0.0.7/hook")).contains("private");
    assertThat(DEFAULTS.webhookProblem("https://192.168.1.1/hook")).contains("private");
    assertThat(DEFAULTS.webhookProblem("https://172.16.0.1/hook")).contains("private");
    assertThat(DEFAULTS.webhookProblem("https://100.64.0.1/hook")).contains("carrier-grade");
    assertThat(DEFAULTS.webhookProblem("https://0.0.0.0/hook")).contains("unspecified");
    assertThat(DEFAULTS.webhookProblem("https://[fd00::1]/hook")).contains("unique local");
    assertThat(DEFAULTS.webhookProblem("https://[fe80::1]/hook")).contains("link-local");
    assertThat(DEFAULTS.webhookProblem("https://224.0.0.1/hook")).contains("multicast");
  }

  @Test
  void shouldRefuseAHostNameThatResolvesInsideTheNetwork() {
    EventValidator dns = new EventValidator(InputBounds.DEFAULTS,
        names(Map.of("hooks.example.com", "93.184.215.14", "sneaky.example.com", "10.1.2.3")));
    assertThat(dns.webhookProblem("https://sneaky.example.com/hook"))
        .contains("resolves to 10.1.2.3, a private address");
    assertThat(dns.webhookProblem("https://hooks.example.com/hook")).isNull();
    assertThat(dns.webhookProblem("https://nowhere.example.com/hook")).contains("does not resolve");
  }

  @Test
  void shouldAcceptAnInternalHostOnlyWhenAnOperatorListedIt() {
    InputBounds demo = InputBounds.DEFAULTS.withWebhookSchemes(List.of("https", "http"))
        .withWebhookInternalHosts(List.of("127.0.0.1", "Hooks.Internal"));
    EventValidator v = new EventValidator(demo, names(Map.of("hooks.internal", "10.9.9.9")));
    assertThat(v.webhookProblem("http://127.0.0.1:8026/services/tideline-demo")).isNull();
    assertThat(v.webhookProblem("https://hooks.internal/x")).isNull();
    assertThat(v.webhookProblem("http://127.0.0.2/x")).contains("allowed only for a host in");
  }

  @Test
  void shouldRefusePlainHttpToAPublicHostEvenWhenHttpIsAnAllowedScheme() {
    EventValidator v = new EventValidator(InputBounds.DEFAULTS.withWebhookSchemes(
        List.of("https", "http")), names(Map.of("hooks.example.com", "93.184.215.14")));
    assertThat(v.webhookProblem("http://hooks.example.com/x")).contains("use https");
    assertThat(v.webhookProblem("https://hooks.example.com/x")).isNull();
  }
}
