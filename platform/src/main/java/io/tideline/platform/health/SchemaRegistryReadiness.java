package io.tideline.platform.health;

import io.tideline.platform.TidelineConfig;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready only while the schema registry answers: without it no event can be written or read, so a
 * service that cannot reach it must not take traffic. Each check also checks the registry's
 * identity ({@link RegistryIdentityWatch}): after a change no cached schema id is trusted. (Kafka's own readiness check comes from
 * {@code quarkus.kafka.health.enabled}.)
 */
@Readiness
@ApplicationScoped
public class SchemaRegistryReadiness implements HealthCheck {

  private final TidelineConfig config;
  private final RegistryIdentityWatch identity;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  public SchemaRegistryReadiness(TidelineConfig config, RegistryIdentityWatch identity) {
    this.config = config;
    this.identity = identity;
  }

  @Override
  public HealthCheckResponse call() {
    String url = config.registry().url() + "/apis/registry/v2/system/info";
    var response = HealthCheckResponse.named("schema-registry").withData("url", url);
    try {
      HttpResponse<String> r = http.send(
          HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(3)).build(),
          HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() == 200) {
        String id = identity.check();
        if (id != null) {
          response.withData("identity", id).withData("identityChanges", identity.changes());
        }
      }
      return response.status(r.statusCode() == 200).withData("status", r.statusCode()).build();
    } catch (Exception e) {
      return response.down().withData("error", String.valueOf(e)).build();
    }
  }
}
