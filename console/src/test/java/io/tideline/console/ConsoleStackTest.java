package io.tideline.console;

import static io.restassured.RestAssured.given;
import static io.tideline.console.view.Events.eviction;
import static io.tideline.console.view.Events.fragmentation;
import static io.tideline.console.view.Events.node;
import static io.tideline.console.view.Events.notice;
import static io.tideline.console.view.Events.placed;
import static io.tideline.console.view.Events.preempt;
import static io.tideline.console.view.Events.queued;
import static io.tideline.console.view.Events.quota;
import static io.tideline.console.view.Events.reserve;
import static io.tideline.console.view.Events.forecast;
import static io.tideline.console.view.Events.bill;
import static io.tideline.console.view.Events.verdict;
import static io.tideline.console.view.Events.victim;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tideline.console.monitoring.MetricsCatalogueTest;
import io.tideline.events.Lane;
import io.tideline.events.NodeFragmentationFigure;
import io.tideline.events.NodeInventory;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.Verdict;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.ClusterNodes;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.TidelineInfraResource;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The console against a real broker and registry: the events of a small tidal morning go through
 * Kafka, the pages render them, a headless Chromium sees every view and a live update over SSE,
 * a real Prometheus scrapes the running console with Tideline's rules loaded, and a fleet of
 * 1,000 nodes with 10,000 queued jobs is paged server-side (render times printed, not asserted).
 */
@QuarkusTest
@QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleStackTest {

  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");
  private static final Duration BOUND = Duration.ofSeconds(90);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static KafkaProducer<String, Object> producer;

  @TestHTTPResource("/")
  URL base;

  /** Once, inside the running application (its class loader holds the generated records). */
  @BeforeEach
  void morningOnce() {
    if (producer == null) {
      morning();
    }
  }

  private static void morning() {
    var infra = TidelineInfraResource.infra();
    producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers(),
        ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(),
        AvroSerdes.<Object>valueSerializer(AvroSerdes.serdeConfig(infra.registry().url(), true)));
    for (NodeInventory n : ClusterNodes.joined("c1", 4, T0)) {
      send(TopicCatalogue.CLUSTER_INVENTORY, n.getNodeId(), n);
    }
    send(TopicCatalogue.JOBS_SUBMITTED, "train-1", JobSubmissions.training("train-1").at(T0)
        .user("bob").build());
    send(TopicCatalogue.PLACEMENT_DECISIONS, "c1", placed("train-1", T0.plusSeconds(30), "n01", 8));
    send(TopicCatalogue.FORECAST_SLOTS, "web", forecast("web", T0, 1, 2));
    send(TopicCatalogue.FORECAST_SLOTS, "web", forecast("web", T0.plusSeconds(3600), 8, 12));
    send(TopicCatalogue.CAPACITY_RESERVATIONS, "web", reserve("web", 8, T0.plusSeconds(600)));
    Instant rise = T0.plusSeconds(1500);
    send(TopicCatalogue.JOBS_SUBMITTED, "web-1", JobSubmissions.onlineInference("web-1", "web", 1)
        .at(rise).build());
    send(TopicCatalogue.PREEMPTION_DECISIONS, "c1", preempt("d1", "web-1", rise.plusSeconds(5),
        PreemptionOutcome.PREEMPT, 4.0, List.of(victim("train-1", 2.0, 8, 1.5))));
    send(TopicCatalogue.PREEMPTION_DECISIONS, "c1", preempt("d0", "web-0", rise,
        PreemptionOutcome.REFUSED, 1.0, List.of()));
    // quota's reclaims name a queue as preemptor: a job id with a slash has its page too
    send(TopicCatalogue.PREEMPTION_DECISIONS, "c1", preempt("d-reclaim", "guarantee-reclaim/search",
        "GUARANTEE_RECLAIM", rise, PreemptionOutcome.REFUSED, 1.0, List.of()));
    send(TopicCatalogue.EVICTIONS, "train-1", eviction("e1", "train-1", "d1", rise.plusSeconds(6)));
    send(TopicCatalogue.NOTICES, "bob", notice("n1", "train-1", "d1", rise.plusSeconds(8)));
    send(TopicCatalogue.PLACEMENT_DECISIONS, "c1", placed("web-1", rise.plusSeconds(40), "n01", 8));
    send(TopicCatalogue.JOBS_SUBMITTED, "train-2", JobSubmissions.training("train-2").at(rise)
        .build());
    send(TopicCatalogue.QUOTA_VERDICTS, "train-2", verdict("train-2", Verdict.QUEUED,
        "search/ranking is at its borrow cap", rise));
    send(TopicCatalogue.PLACEMENT_QUEUE, "train-2", queued("train-2", Lane.TRAINING, 1, rise,
        "quota"));
    send(TopicCatalogue.QUOTA_STATE, "search", quota("search", "search", 32, 16, 0, rise));
    send(TopicCatalogue.QUOTA_STATE, "search/ranking", quota("search/ranking", "search", 16, 16, 4,
        rise));
    send(TopicCatalogue.BILLING_USAGE, "search", bill("search", "train-1", T0, 8 * 1800, 4.0));
    send(TopicCatalogue.PLACEMENT_FRAGMENTATION, "c1", fragmentation(rise, 3, 10, List.of(
        node("n02", 5, 2), node("n03", 5, 1))));
    producer.flush();
  }

  @AfterAll
  static void close() {
    if (producer != null) {
      producer.close();
    }
  }

  private static void send(String topic, String key, Object value) {
    producer.send(new ProducerRecord<>(topic, key, value));
  }

  private String url(String path) {
    return base.toString().replaceAll("/$", "") + path;
  }

  private static void await(Supplier<Boolean> condition, String what) throws InterruptedException {
    Instant deadline = Instant.now().plus(BOUND);
    while (!condition.get()) {
      assertThat(Instant.now()).as("%s within %s", what, BOUND).isBefore(deadline);
      Thread.sleep(200);
    }
  }

  private long summary(String field) {
    return given().get(url("/api/summary")).then().statusCode(200).extract().jsonPath()
        .getLong(field);
  }

  @Test
  @Order(1)
  void shouldRenderEveryViewFromWhatWentThroughKafka() throws Exception {
    await(() -> summary("appliedPreemptions") == 1 && summary("waiting") == 1,
        "the console folded the morning");
    assertThat(given().get(url("/tide")).then().statusCode(200).extract().asString())
        .contains("<svg", "forecasts", "web", "reserved ahead 8.00");
    assertThat(given().get(url("/queues?lane=TRAINING")).then().statusCode(200).extract().asString())
        .contains("train-2", "quota: search/ranking is at its borrow cap");
    assertThat(given().get(url("/preemptions")).then().statusCode(200).extract().asString())
        .contains("PREEMPT", "REFUSED", "cost-vs-gain", "score ratio 2.00", "queue boost 0.50",
            "PREEMPT train-1", "PREEMPTED to bob");
    assertThat(given().get(url("/jobs/train-1")).then().statusCode(200).extract().asString())
        .contains("Decision trail of train-1", "preemption.decisions", "cost-vs-gain",
            "evictions");
    assertThat(given().get(url("/quota")).then().statusCode(200).extract().asString())
        .contains("ranking", "2026-11-30", "4.00 USD");
    assertThat(given().get(url("/fragmentation")).then().statusCode(200).extract().asString())
        .contains("asw1", "asw2", "n02");
    assertThat(given().get(url("/jobs/guarantee-reclaim/search")).then().statusCode(200).extract()
        .asString()).contains("Decision trail of guarantee-reclaim/search");
    given().get(url("/jobs/nobody")).then().statusCode(404);
    given().get(url("/queues?lane=NOPE")).then().statusCode(400);
  }

  @Test
  @Order(2)
  void shouldShowEveryViewInChromiumAndALiveUpdateOverSse() throws Exception {
    Path binary = Repo.tool("chromium", "chromium");
    Path shots = Path.of("target", "console-screenshots");
    Files.createDirectories(shots);
    try (Chromium browser = Chromium.start(binary, 1280, 900)) {
      browser.navigate(url("/preemptions"));
      browser.awaitJs(BOUND, "Number(document.body.dataset.liveVersion) > 0");
      assertThat(browser.eval("document.querySelector('table.trace').innerText"))
          .as("the rule trace").contains("cost-vs-gain", "score-threshold");
      send(TopicCatalogue.PREEMPTION_DECISIONS, "c1", preempt("d-live", "web-2",
          T0.plusSeconds(2400), PreemptionOutcome.PREEMPT, 6.0, List.of(victim("train-3", 2.0, 8,
              1.0))));
      producer.flush();
      browser.awaitJs(BOUND, "document.getElementById('d-d-live') !== null");
      assertThat(browser.eval("document.getElementById('applied').innerText")).isEqualTo("2");
      Files.write(shots.resolve("preemptions.png"), browser.screenshot());
      for (String view : List.of("tide", "queues", "quota", "fragmentation", "jobs/train-1")) {
        browser.navigate(url("/" + view));
        assertThat(browser.eval("document.querySelector('main h1').innerText")).isNotBlank();
        Files.write(shots.resolve(view.replace("jobs/", "job-") + ".png"), browser.screenshot());
      }
    }
    if (Boolean.getBoolean("tideline.console.update-screenshots")) {
      Path docs = Repo.root().resolve("docs/console");
      Files.createDirectories(docs);
      try (var files = Files.list(shots)) {
        for (Path f : files.toList()) {
          Files.copy(f, docs.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  @Test
  @Order(3)
  void shouldBeScrapedByARealPrometheusWithTheRulesLoaded() throws Exception {
    Path prometheus = Repo.tool("prometheus", "prometheus");
    Path dir = Files.createTempDirectory("tideline-prometheus");
    Path rules = dir.resolve("rules.yaml");
    MetricsCatalogueTest.writeRulesFile(rules);
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Files.writeString(dir.resolve("prometheus.yml"), String.join("\n",
        "global:", "  scrape_interval: 1s", "  evaluation_interval: 1s",
        "rule_files: [\"" + rules + "\"]",
        "scrape_configs:", "  - job_name: console", "    metrics_path: /q/metrics",
        "    static_configs:", "      - targets: [\"" + base.getHost() + ":" + base.getPort() + "\"]",
        "        labels: {service: console}", ""));
    Process p = new ProcessBuilder(prometheus.toString(),
        "--config.file=" + dir.resolve("prometheus.yml"), "--storage.tsdb.path=" + dir.resolve("data"),
        "--web.listen-address=127.0.0.1:" + port).redirectErrorStream(true)
        .redirectOutput(dir.resolve("prometheus.log").toFile()).start();
    HttpClient http = HttpClient.newHttpClient();
    String api = "http://127.0.0.1:" + port;
    try {
      await(() -> get(http, api + "/-/ready") != null, "prometheus ready");
      JsonNode groups = JSON.readTree(get(http, api + "/api/v1/rules")).path("data").path("groups");
      assertThat(groups).extracting(g -> g.path("name").asText())
          .containsExactlyInAnyOrder("tideline.recording", "tideline.alerts");
      await(() -> !query(http, api, "tideline_console_records_total{topic=\"preemption.decisions\","
          + "outcome=\"folded\",service=\"console\"}").isEmpty(), "the console's records scraped");
      await(() -> !query(http, api, "tideline:console_records:rate1m{service=\"console\"}")
          .isEmpty(), "the recording rule's series");
      await(() -> query(http, api, "tideline_console_preemptions_applied").stream()
          .anyMatch(s -> s.path("value").path(1).asDouble() >= 1), "applied preemptions");
      for (JsonNode g : JSON.readTree(get(http, api + "/api/v1/rules")).path("data")
          .path("groups")) {
        for (JsonNode r : g.path("rules")) {
          assertThat(r.path("health").asText()).as("rule %s", r.path("name")).isNotEqualTo("err");
        }
      }
    } finally {
      p.destroy();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }

  @Test
  @Order(4)
  void shouldPageTenThousandJobsOnAThousandNodesServerSide() throws Exception {
    long before = summary("version");
    List<NodeFragmentationFigure> figures = new ArrayList<>();
    for (NodeInventory n : ClusterNodes.joined("big", 1000, T0)) {
      send(TopicCatalogue.CLUSTER_INVENTORY, "big-" + n.getNodeId(), n);
      figures.add(node(n.getNodeId(), 3, 1));
    }
    for (int i = 0; i < 10_000; i++) {
      String job = "bulk-" + i;
      send(TopicCatalogue.JOBS_SUBMITTED, job, JobSubmissions.training(job).at(T0).build());
      send(TopicCatalogue.PLACEMENT_QUEUE, job, queued(job, Lane.BATCH, i + 1, T0, "gang"));
    }
    send(TopicCatalogue.PLACEMENT_FRAGMENTATION, "big", fragmentation(T0.plusSeconds(4000), 1000,
        3000, figures));
    producer.flush();
    long expected = before + 1000 + 20_000 + 1;
    await(() -> summary("version") >= expected, "20,000 records folded");
    Map<String, String> pages = Map.of(
        "queues, first page", "/queues?lane=BATCH",
        "queues, page 100", "/queues?lane=BATCH&page=100",
        "tide", "/tide",
        "preemptions", "/preemptions",
        "fragmentation", "/fragmentation",
        "job page", "/jobs/bulk-9999");
    for (var e : pages.entrySet()) {
      given().get(url(e.getValue())).then().statusCode(200); // warm
      long start = System.nanoTime();
      String html = given().get(url(e.getValue())).then().statusCode(200).extract().asString();
      System.out.printf("console page render, 10,000 jobs / 1,000 nodes: %-20s %6.1f ms, %,d bytes%n",
          e.getKey(), (System.nanoTime() - start) / 1e6, html.length());
    }
    String last = given().get(url("/queues?lane=BATCH&page=200")).then().statusCode(200).extract()
        .asString();
    assertThat(last).contains("page 200 of 200 (10000 in all)", "bulk-9999")
        .doesNotContain("bulk-9949<");
    assertThat(given().get(url("/fragmentation")).then().extract().asString())
        .contains("page 1 of");
  }

  private static String get(HttpClient http, String url) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url))
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? r.body() : null;
    } catch (Exception e) {
      return null;
    }
  }

  private static List<JsonNode> query(HttpClient http, String api, String promql) {
    String body = get(http, api + "/api/v1/query?query="
        + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    List<JsonNode> out = new ArrayList<>();
    if (body != null) {
      try {
        JSON.readTree(body).path("data").path("result").forEach(out::add);
      } catch (Exception e) {
        return out;
      }
    }
    return out;
  }
}
