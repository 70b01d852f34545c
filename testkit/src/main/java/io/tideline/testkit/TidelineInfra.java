package io.tideline.testkit;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The real infrastructure one test class needs: a broker and a schema registry, started together
 * and stopped together. {@link #config()} is what a service reads to reach them.
 */
public final class TidelineInfra implements AutoCloseable {

  private final KafkaBroker broker;
  private final SchemaRegistryServer registry;

  private TidelineInfra(KafkaBroker broker, SchemaRegistryServer registry) {
    this.broker = broker;
    this.registry = registry;
  }

  public static TidelineInfra start() {
    KafkaBroker broker = KafkaBroker.start();
    try {
      return new TidelineInfra(broker, SchemaRegistryServer.start());
    } catch (RuntimeException e) {
      broker.close();
      throw e;
    }
  }

  public KafkaBroker broker() {
    return broker;
  }

  public SchemaRegistryServer registry() {
    return registry;
  }

  /** Quarkus/Tideline configuration pointing a service at this broker and registry. */
  public Map<String, String> config() {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("kafka.bootstrap.servers", broker.bootstrapServers());
    c.put("tideline.registry.url", registry.url());
    return c;
  }

  @Override
  public void close() {
    try {
      registry.close();
    } finally {
      broker.close();
    }
  }
}
