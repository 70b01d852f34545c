package io.tideline.platform.health;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Who the schema registry is: a random identity kept in the registry itself (artifact
 * {@code tideline/registry-identity}), created by the first client that finds none. A schema id
 * is only meaningful in the registry that issued it; a registry that lost its storage, or another
 * registry behind the same URL, has another identity — which is how a service knows its cached
 * ids must not be trusted any more (issue #16 finding 6, ADR 0013).
 */
public final class RegistryIdentity {

  static final String GROUP = "tideline";
  static final String ARTIFACT = "registry-identity";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private RegistryIdentity() {}

  /** The identity of the registry at {@code root}, creating it if the registry has none. */
  public static String getOrCreate(String root) throws IOException, InterruptedException {
    return getOrCreate(root, Optional.empty());
  }

  /**
   * As {@link #getOrCreate(String)}, creating with {@code authorization} (the registrar's bearer
   * token, ADR 0027) when given: on a secured registry only the registrar may create it, and
   * every service finds the identity it created.
   */
  public static String getOrCreate(String root, Optional<String> authorization)
      throws IOException, InterruptedException {
    String found = get(root);
    if (found != null) {
      return found;
    }
    String mine = UUID.randomUUID().toString();
    String body = JSON.writeValueAsString(Map.of("identity", mine,
        "createdAt", Instant.now().toString()));
    HttpRequest.Builder create = HttpRequest.newBuilder(URI.create(strip(root)
            + "/apis/registry/v2/groups/" + GROUP + "/artifacts?ifExists=FAIL"))
        .timeout(Duration.ofSeconds(5))
        .header("Content-Type", "application/json")
        .header("X-Registry-ArtifactId", ARTIFACT)
        .header("X-Registry-ArtifactType", "JSON")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    authorization.ifPresent(a -> create.header("Authorization", a));
    HttpResponse<String> r = HTTP.send(create.build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() / 100 == 2) {
      return mine;
    }
    // someone else created it first (409): theirs is the identity
    String now = get(root);
    if (now == null) {
      throw new IOException("could not create the registry identity: HTTP " + r.statusCode()
          + " " + r.body());
    }
    return now;
  }

  /** The identity of the registry at {@code root}, or {@code null} when it has none. */
  public static String get(String root) throws IOException, InterruptedException {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(strip(root)
            + "/apis/registry/v2/groups/" + GROUP + "/artifacts/" + ARTIFACT))
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() == 404) {
      return null;
    }
    if (r.statusCode() != 200) {
      throw new IOException("registry identity: HTTP " + r.statusCode() + " " + r.body());
    }
    return JSON.readTree(r.body()).path("identity").asText(null);
  }

  private static String strip(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}
