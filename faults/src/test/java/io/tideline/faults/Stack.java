package io.tideline.faults;

import io.tideline.platform.serde.ContractSubjects;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.topics.TopicSpec;
import io.tideline.testkit.SchemaRegistryServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The whole system as {@code ./tideline up} runs it, every part a real process: a KRaft broker,
 * the registry (file-backed storage), the topics of the catalogue, every contract registered
 * ({@code tideline schemas register}), and the six services from their packaged jars.
 */
final class Stack implements AutoCloseable {

  /**
   * {@code -Dtideline.faults.tick=1s}: the wall-clock tick interval the telemetry service
   * publishes ({@code tideline.telemetry.clock.interval}); unset, the service's default.
   */
  static final String TICK_PROPERTY = "tideline.faults.tick";

  static final List<String> SERVICES = List.of("gpu-telemetry-svc", "forecaster-svc",
      "quota-svc", "placement-svc", "preemption-svc", "notifier-svc");

  final Path dir;
  final BrokerProcess broker;
  final SchemaRegistryServer registry;
  final WebhookSink webhooks;
  final Map<String, ServiceProcess> services = new LinkedHashMap<>();

  private Stack(Path dir, BrokerProcess broker, SchemaRegistryServer registry,
      WebhookSink webhooks) {
    this.dir = dir;
    this.broker = broker;
    this.registry = registry;
    this.webhooks = webhooks;
  }

  static Stack start() throws Exception {
    Path home = SchemaRegistryServer.home().orElseThrow();
    Path dir = Files.createTempDirectory("faults-stack-");
    Path logs = Path.of("target", "faults-logs").toAbsolutePath();
    Files.createDirectories(logs);
    BrokerProcess broker = BrokerProcess.start(home, dir.resolve("kafka"), logs);
    SchemaRegistryServer registry = SchemaRegistryServer.startProcess(dir.resolve("registry"),
        Ports.free());
    Stack s;
    try {
      s = new Stack(dir, broker, registry, new WebhookSink());
    } catch (IOException | RuntimeException e) {
      registry.close();
      broker.close();
      throw e;
    }
    try {
      s.createTopics();
      ContractSubjects.register(registry.url(), ContractSubjects.all());
      for (String name : SERVICES) {
        ServiceProcess p = new ServiceProcess(name, s.settings(name), logs);
        s.services.put(name, p);
        p.start();
      }
      for (ServiceProcess p : s.services.values()) {
        p.awaitReady(Duration.ofMinutes(5));
      }
      return s;
    } catch (Exception | Error e) {
      s.close(); // a stack that did not come up leaves no process behind
      throw e;
    }
  }

  private List<String> settings(String name) {
    List<String> c = new ArrayList<>(List.of(
        "-Dkafka.bootstrap.servers=" + broker.bootstrap(),
        "-Dtideline.registry.url=" + registry.url(),
        "-Dkafka-streams.state.dir=" + dir.resolve("state").resolve(name),
        "-Dquarkus.log.level=INFO"));
    switch (name) {
      case "gpu-telemetry-svc" -> {
        c.add("-Dtideline.telemetry.inventory.topology-file=" + Ports.root().resolve(
            "simulator/src/main/resources/io/tideline/simulator/network-topology-847-hosts.csv"));
        String tick = System.getProperty(TICK_PROPERTY, "").strip();
        if (!tick.isEmpty()) {
          c.add("-Dtideline.telemetry.clock.interval=" + tick);
        }
      }
      case "notifier-svc" -> c.addAll(List.of(
          "-Dtideline.intake.webhook-schemes=https,http",
          "-Dtideline.intake.webhook-internal-hosts=127.0.0.1",
          "-Dnotifier.slack.webhook-url=" + webhooks.url("/hooks/default"),
          "-Dnotifier.defaults.channels=SLACK", "-Dnotifier.slack.min-interval=0s",
          "-Dnotifier.health.stalled-after=60s"));
      default -> { }
    }
    return c;
  }

  private void createTopics() throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrap()))) {
      Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      List<NewTopic> missing = new ArrayList<>();
      for (TopicSpec t : TopicCatalogue.all()) {
        if (!existing.contains(t.name())) {
          missing.add(new NewTopic(t.name(), t.partitions(), (short) 1).configs(t.configs()));
        }
      }
      admin.createTopics(missing).all().get(60, TimeUnit.SECONDS);
    }
  }

  ServiceProcess service(String name) {
    return services.get(name);
  }

  /** SIGKILL of a service, then its restart; returns once it is ready again. */
  void kill9AndRestart(String name) throws IOException {
    ServiceProcess p = services.get(name);
    p.kill9();
    p.start();
    p.awaitReady(Duration.ofMinutes(5));
  }

  /** Every service's {@code /q/health} status code. */
  Map<String, Integer> health() {
    Map<String, Integer> h = new LinkedHashMap<>();
    services.forEach((n, p) -> h.put(n, p.status("/q/health")));
    return h;
  }

  /** Waits until every service reports {@code /q/health} 200. */
  void awaitHealthy(Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      if (health().values().stream().allMatch(s -> s == 200)) {
        return;
      }
      Ports.sleep(500);
    }
    throw new AssertionError("not every service is healthy: " + health());
  }

  @Override
  public void close() {
    services.values().forEach(ServiceProcess::close);
    webhooks.close();
    registry.close();
    broker.close();
  }
}
