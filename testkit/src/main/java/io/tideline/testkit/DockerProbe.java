package io.tideline.testkit;

/**
 * Testcontainers, used only when a Docker engine actually answers. Kept apart so a machine without
 * Docker never loads a container class beyond the probe.
 */
final class DockerProbe {

  /** Image of the broker when run in a container; the same Kafka version as the clients. */
  static final String KAFKA_IMAGE = "apache/kafka:4.1.2";

  private DockerProbe() {}

  static boolean available() {
    if ("false".equalsIgnoreCase(System.getenv("TIDELINE_TEST_DOCKER"))) {
      return false;
    }
    try {
      return org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
    } catch (Throwable t) {
      return false;
    }
  }

  static KafkaBroker startContainer() {
    var container = new org.testcontainers.kafka.KafkaContainer(KAFKA_IMAGE);
    container.start();
    return KafkaBroker.container(container.getBootstrapServers(), container::stop);
  }
}
