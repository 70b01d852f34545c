package io.tideline.platform.serde;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tideline.events.Contracts;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.topics.TopicSpec;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;

/**
 * The value subject of every catalogued topic and the contract it carries: {@code <topic>-value}
 * with the self-contained schema of the topic's record (nested named types inlined, no
 * references), registered through the registry's Confluent-compatible API so any client —
 * Confluent's serializers in any language, ours — finds the same subject and the same id
 * (ADR 0013). {@code tideline schemas register} and {@code ./tideline up} run {@link #register}
 * before any service starts, so a fresh stack already serves {@code jobs.submitted-value}.
 */
public final class ContractSubjects {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** One subject and its schema. */
  public record Subject(String topic, String subject, Schema schema) {}

  /** What registering one subject gave: the id clients write in the wire format. */
  public record Registered(String subject, int id) {}

  private ContractSubjects() {}

  /**
   * The subject name the forecaster's internal envelopes are serialized under (its repartition
   * hop, not a catalogued topic). Registered with the catalogue's subjects so a service with
   * auto-register off (ADR 0027) finds it.
   */
  public static final String FORECASTER_INPUTS = "forecaster.inputs";

  /** Every catalogued topic's value subject, in catalogue order, then the internal ones. */
  public static List<Subject> all() {
    Map<String, Class<? extends SpecificRecord>> byName = new LinkedHashMap<>();
    Contracts.TOPIC_RECORDS.forEach(c -> byName.put(c.getSimpleName(), c));
    List<Subject> out = new ArrayList<>();
    for (TopicSpec t : TopicCatalogue.all()) {
      Class<? extends SpecificRecord> type = byName.get(t.valueRecord());
      if (type == null) {
        throw new IllegalStateException("topic " + t.name() + " carries " + t.valueRecord()
            + ", which is not a contract of the schemas module");
      }
      out.add(new Subject(t.name(), t.name() + "-value", Contracts.schemaOf(type)));
    }
    out.add(of(FORECASTER_INPUTS, io.tideline.events.LedgerInput.class));
    return out;
  }

  /** The subject of one topic (any name: tests use suffixed ones) for a contract. */
  public static Subject of(String topic, Class<? extends SpecificRecord> type) {
    return new Subject(topic, topic + "-value", Contracts.schemaOf(type));
  }

  /**
   * Registers {@code subjects} (as a new version where the schema differs from the latest; the
   * same id where it is already there) at the registry rooted at {@code registryRoot}.
   *
   * @throws IllegalStateException naming the subject and the registry's answer when one fails
   */
  public static List<Registered> register(String registryRoot, List<Subject> subjects) {
    return register(registryRoot, subjects, Optional.empty());
  }

  /**
   * As {@link #register(String, List)}, sending {@code authorization} (the registrar's bearer
   * token, ADR 0027) when given: a secured registry refuses anonymous writes.
   */
  public static List<Registered> register(String registryRoot, List<Subject> subjects,
      Optional<String> authorization) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    List<Registered> out = new ArrayList<>();
    for (Subject s : subjects) {
      String body;
      try {
        body = JSON.writeValueAsString(Map.of("schema", s.schema().toString(),
            "schemaType", "AVRO"));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(strip(registryRoot)
              + "/apis/ccompat/v7/subjects/" + s.subject() + "/versions"))
          .timeout(Duration.ofSeconds(30))
          .POST(HttpRequest.BodyPublishers.ofString(body))
          .header("Content-Type", "application/vnd.schemaregistry.v1+json");
      authorization.ifPresent(a -> request.header("Authorization", a));
      try {
        HttpResponse<String> r = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
          throw new IllegalStateException("registering " + s.subject() + " at " + registryRoot
              + " failed: HTTP " + r.statusCode() + " " + r.body());
        }
        JsonNode id = JSON.readTree(r.body()).get("id");
        out.add(new Registered(s.subject(), id.asInt()));
      } catch (IOException e) {
        throw new IllegalStateException("registering " + s.subject() + " at " + registryRoot
            + " failed: " + e, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    return out;
  }

  private static String strip(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}
