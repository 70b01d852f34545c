package io.tideline.platform.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tideline.events.JobSubmitted;
import io.tideline.platform.health.RegistryIdentity;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.SchemaRegistryServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue #18 point 3, ADR 0027, on a real Apicurio Registry 2.6 started as {@code ./tideline up
 * --secure} starts it: anonymous clients read, only the registrar writes, nobody deletes a
 * version, and the registry itself holds the BACKWARD rule.
 */
class RegistrySingleWriterTest {

  private static final Duration TTL = Duration.ofMinutes(5);
  private static final String CCOMPAT_JSON = "application/vnd.schemaregistry.v1+json";
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  static SchemaRegistryServer registry;
  static RegistrarCredential registrar;

  @BeforeAll
  static void start() {
    KeyPair pair = RegistrarCredential.generate();
    registrar = RegistrarCredential.of(pair.getPrivate(), "registrar");
    registry = SchemaRegistryServer.startProcess(
        RegistrarCredential.registryProperties(RegistrarCredential.publicKey(pair)));
  }

  @AfterAll
  static void stop() {
    registry.close();
  }

  private static Optional<String> asRegistrar() {
    return Optional.of(registrar.authorization(Instant.now(), TTL));
  }

  @Test
  void shouldRefuseAnAnonymousCreateAndAnonymousDeletes() throws Exception {
    ContractSubjects.Subject s = ContractSubjects.of("anon.create", JobSubmitted.class);
    assertThatThrownBy(() -> ContractSubjects.register(registry.url(), List.of(s)))
        .hasMessageContaining("HTTP 401");

    ContractSubjects.register(registry.url(), List.of(ContractSubjects.of("anon.delete",
        JobSubmitted.class)), asRegistrar());
    assertThat(send("DELETE", "/apis/ccompat/v7/subjects/anon.delete-value", null, null)
        .statusCode()).isEqualTo(401);
    assertThat(send("DELETE", "/apis/ccompat/v7/subjects/anon.delete-value/versions/1", null,
        null).statusCode()).isEqualTo(401);
    assertThat(send("DELETE", "/apis/registry/v2/groups/default/artifacts/anon.delete-value",
        null, null).statusCode()).isEqualTo(401);
    // still there
    assertThat(registry.get("/apis/ccompat/v7/subjects/anon.delete-value/versions/latest"))
        .contains("\"version\":1");
  }

  @Test
  void shouldRefuseVersionDeletesEvenToTheRegistrar() throws Exception {
    ContractSubjects.register(registry.url(), List.of(ContractSubjects.of("no.version.delete",
        JobSubmitted.class)), asRegistrar());

    HttpResponse<String> r = send("DELETE",
        "/apis/registry/v2/groups/default/artifacts/no.version.delete-value/versions/1", null,
        asRegistrar().orElseThrow());

    assertThat(r.statusCode()).as(r.body()).isEqualTo(405);
    assertThat(r.body()).contains("version deletion operation is not enabled");
  }

  @Test
  void shouldRefuseAnonymousChangesToTheCompatibilityRule() throws Exception {
    assertThat(send("PUT", "/apis/ccompat/v7/config", "{\"compatibility\":\"NONE\"}", null)
        .statusCode()).isEqualTo(401);
    assertThat(send("PUT", "/apis/registry/v2/admin/rules/COMPATIBILITY",
        "{\"type\":\"COMPATIBILITY\",\"config\":\"NONE\"}", null).statusCode()).isEqualTo(401);
    // nor may the registrar (a developer, not an admin) relax the global rule
    assertThat(send("PUT", "/apis/ccompat/v7/config", "{\"compatibility\":\"NONE\"}",
        asRegistrar().orElseThrow()).statusCode()).isEqualTo(403);

    assertThat(registry.get("/apis/registry/v2/admin/rules/COMPATIBILITY")).contains("BACKWARD");
  }

  @Test
  void shouldRefuseATokenSignedWithAnotherKey() {
    RegistrarCredential forger = RegistrarCredential.of(RegistrarCredential.generate()
        .getPrivate(), "registrar");
    ContractSubjects.Subject s = ContractSubjects.of("forged.token", JobSubmitted.class);

    assertThatThrownBy(() -> ContractSubjects.register(registry.url(), List.of(s),
        Optional.of(forger.authorization(Instant.now(), TTL))))
        .hasMessageContaining("HTTP 401");
  }

  @Test
  void shouldLetTheRegistrarPublishEveryContractAndTheRegistryIdentity() throws Exception {
    List<ContractSubjects.Registered> ids = ContractSubjects.register(registry.url(),
        ContractSubjects.all(), asRegistrar());
    String identity = RegistryIdentity.getOrCreate(registry.url(), asRegistrar());

    assertThat(ids).hasSize(ContractSubjects.all().size());
    assertThat(RegistryIdentity.get(registry.url())).isEqualTo(identity);
    // idempotent, as `up` runs it on every start
    assertThat(ContractSubjects.register(registry.url(), ContractSubjects.all(), asRegistrar()))
        .isEqualTo(ids);
  }

  @Test
  void shouldRefuseAnIncompatibleSchemaByTheRegistrysOwnRule() throws Exception {
    ContractSubjects.register(registry.url(), List.of(ContractSubjects.of("evolving",
        JobSubmitted.class)), asRegistrar());
    // a new required field without a default: old records cannot be read with it (not BACKWARD)
    Schema incompatible = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"JobSubmitted\","
        + "\"namespace\":\"io.tideline.events\",\"fields\":[{\"name\":\"mandatoryNow\","
        + "\"type\":\"string\"}]}");

    assertThatThrownBy(() -> ContractSubjects.register(registry.url(),
        List.of(new ContractSubjects.Subject("evolving", "evolving-value", incompatible)),
        asRegistrar()))
        .hasMessageContaining("HTTP 409").hasMessageContaining("Incompatible");
  }

  @Test
  void shouldLetAServiceSerdeWithAutoRegisterOffWriteAndReadAnonymously() {
    ContractSubjects.register(registry.url(), List.of(ContractSubjects.of("serde.reads",
        JobSubmitted.class)), asRegistrar());
    JobSubmitted job = JobSubmissions.training("job-serde-1")
        .at(Instant.parse("2026-11-02T14:00:00Z")).build();

    try (Serializer<JobSubmitted> out = AvroSerdes.valueSerializer(
            AvroSerdes.serdeConfig(registry.url(), false));
        Deserializer<JobSubmitted> in = AvroSerdes.valueDeserializer(
            AvroSerdes.serdeConfig(registry.url(), false))) {
      byte[] bytes = out.serialize("serde.reads", job);
      assertThat(in.deserialize("serde.reads", bytes)).isEqualTo(job);
    }
  }

  @Test
  void shouldNotLetAServiceSerdeRegisterAnUnpublishedSubject() {
    JobSubmitted job = JobSubmissions.training("job-serde-2")
        .at(Instant.parse("2026-11-02T14:00:00Z")).build();

    try (Serializer<JobSubmitted> autoRegistering = AvroSerdes.valueSerializer(
        AvroSerdes.serdeConfig(registry.url(), true))) {
      assertThatThrownBy(() -> autoRegistering.serialize("never.published", job))
          .hasStackTraceContaining("AuthError");
    }
  }

  private static HttpResponse<String> send(String method, String path, String body,
      String authorization) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(registry.url() + path))
        .timeout(Duration.ofSeconds(60))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", path.contains("/ccompat/") ? CCOMPAT_JSON : "application/json");
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
