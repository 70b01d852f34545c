package io.tideline.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * A real Kafka broker for tests, found or started in this order: an external broker named by
 * {@code KAFKA_BOOTSTRAP_SERVERS}; a Testcontainers broker when a Docker engine answers; Kafka's own
 * in-JVM KRaft test kit (one combined broker/controller, ready in ~2 s). No Docker runs on our
 * machines or CI, so the test kit is the usual choice; the order lets a developer with Docker or a
 * shared broker use that instead.
 *
 * <p>A reused external broker keeps topics and offsets between runs: tests must use unique topic
 * names or group ids ({@link #unique(String)}).
 */
public final class KafkaBroker implements AutoCloseable {

  /** Where the broker came from. */
  public enum Kind { EXTERNAL, CONTAINER, IN_JVM }

  /** Settings a single-broker cluster needs, or consumers and Streams hang silently. */
  static final Map<String, String> SINGLE_NODE = Map.of(
      "offsets.topic.replication.factor", "1",
      "offsets.topic.num.partitions", "1",
      "transaction.state.log.replication.factor", "1",
      "transaction.state.log.min.isr", "1",
      "share.coordinator.state.topic.replication.factor", "1",
      "group.initial.rebalance.delay.ms", "0",
      "auto.create.topics.enable", "false",
      // Records carry their event time as timestamp, and a twin's simulated days lie in the past:
      // with the default 7-day retention the broker would delete them before anyone reads them.
      "log.retention.ms", "-1");

  private final Kind kind;
  private final String bootstrapServers;
  private final AutoCloseable owned;

  private KafkaBroker(Kind kind, String bootstrapServers, AutoCloseable owned) {
    this.kind = kind;
    this.bootstrapServers = bootstrapServers;
    this.owned = owned;
  }

  /** Finds or starts a broker (see the class comment for the order). */
  public static KafkaBroker start() {
    String external = System.getenv("KAFKA_BOOTSTRAP_SERVERS");
    if (external != null && !external.isBlank()) {
      return new KafkaBroker(Kind.EXTERNAL, external, null);
    }
    if (DockerProbe.available()) {
      return DockerProbe.startContainer();
    }
    return startInJvm();
  }

  /** Kafka's KRaft test kit inside this JVM, with its logs under {@code java.io.tmpdir}. */
  public static KafkaBroker startInJvm() {
    try {
      Path base = Files.createTempDirectory("kafka-testkit-");
      TestKitNodes nodes = new TestKitNodes.Builder()
          .setCombined(true)
          .setNumBrokerNodes(1)
          .setNumControllerNodes(1)
          .setBaseDirectory(base)
          .build();
      KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
      SINGLE_NODE.forEach(builder::setConfigProp);
      KafkaClusterTestKit cluster = builder.build();
      cluster.format();
      cluster.startup();
      cluster.waitForReadyBrokers();
      return new KafkaBroker(Kind.IN_JVM, cluster.bootstrapServers(), cluster);
    } catch (Exception e) {
      throw new IllegalStateException("could not start the in-JVM Kafka broker: " + e, e);
    }
  }

  static KafkaBroker container(String bootstrapServers, AutoCloseable container) {
    return new KafkaBroker(Kind.CONTAINER, bootstrapServers, container);
  }

  public Kind kind() {
    return kind;
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** A new admin client; the caller closes it. */
  public Admin admin() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return Admin.create(p);
  }

  /** Creates the topics (one partition each unless named as {@code name:partitions}); existing ones are kept. */
  public void createTopics(String... topics) {
    List<NewTopic> create = new ArrayList<>();
    for (String t : topics) {
      String[] parts = t.split(":");
      int partitions = parts.length > 1 ? Integer.parseInt(parts[1]) : 1;
      create.add(new NewTopic(parts[0], partitions, (short) 1));
    }
    try (Admin admin = admin()) {
      for (var entry : admin.createTopics(create).values().entrySet()) {
        try {
          entry.getValue().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw e;
          }
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("could not create topics " + List.of(topics) + ": " + e, e);
    }
  }

  /** A name no earlier run on a reused broker can have used. */
  public static String unique(String prefix) {
    return prefix + "-" + Long.toHexString(System.nanoTime()) + "-"
        + Integer.toHexString((int) (Math.random() * 0xffff));
  }

  @Override
  public void close() {
    if (owned != null) {
      try {
        owned.close();
      } catch (Exception e) {
        throw new IllegalStateException("could not stop the Kafka broker: " + e, e);
      }
    }
  }
}
