package io.tideline.cli;

import io.tideline.platform.serde.AvroSerdes;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine.Option;

/**
 * Where the CLI connects, from (highest first) flags, the environment ({@code
 * KAFKA_BOOTSTRAP_SERVERS}, {@code TIDELINE_REGISTRY_URL}), a properties file ({@code --config},
 * else {@code TIDELINE_CLI_CONFIG}, which {@code ./tideline} sets on a secured local stack,
 * default {@code ~/.tideline/cli.properties}), and the local stack's defaults. Every other key in
 * the file is passed to the Kafka clients as is, so a secured cluster works with the usual
 * {@code security.protocol}, {@code sasl.*} and {@code ssl.*} settings.
 */
public final class Connection {

  static final String DEFAULT_BOOTSTRAP = "127.0.0.1:9092";
  static final String DEFAULT_REGISTRY = "http://127.0.0.1:8085";

  @Option(names = "--bootstrap", description = "Kafka bootstrap servers (env KAFKA_BOOTSTRAP_SERVERS; default ${DEFAULT-VALUE})")
  String bootstrap;

  @Option(names = "--registry", description = "Schema registry root URL (env TIDELINE_REGISTRY_URL; default " + DEFAULT_REGISTRY + ")")
  String registry;

  @Option(names = "--config", description = "Properties file with Kafka client settings (SASL/TLS); env TIDELINE_CLI_CONFIG; default ~/.tideline/cli.properties")
  Path config;

  /** Kafka client properties: the file's, then bootstrap servers. */
  Properties clientProperties() {
    Properties p = new Properties();
    String fromEnv = System.getenv("TIDELINE_CLI_CONFIG");
    if (config == null && fromEnv != null && !fromEnv.isBlank()) {
      config = Path.of(fromEnv);
    }
    Path file = config != null ? config : Path.of(System.getProperty("user.home"), ".tideline", "cli.properties");
    if (Files.isRegularFile(file)) {
      try (Reader r = Files.newBufferedReader(file)) {
        p.load(r);
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
      }
    } else if (config != null) {
      throw new IllegalArgumentException("no such config file: " + config);
    }
    String registryFromFile = (String) p.remove("tideline.registry.url");
    if (registry == null && registryFromFile != null && System.getenv("TIDELINE_REGISTRY_URL") == null) {
      registry = registryFromFile;
    }
    p.put("bootstrap.servers", first(bootstrap, System.getenv("KAFKA_BOOTSTRAP_SERVERS"),
        p.getProperty("bootstrap.servers"), DEFAULT_BOOTSTRAP));
    return p;
  }

  String registryUrl() {
    return first(registry, System.getenv("TIDELINE_REGISTRY_URL"), null, DEFAULT_REGISTRY);
  }

  /**
   * Serde settings returning generated (specific) records. Auto-register off: the contracts are
   * registered by {@code tideline schemas register}, the registry's only writer (ADR 0027).
   */
  Map<String, Object> specificSerde() {
    return AvroSerdes.serdeConfig(registryUrl(), false);
  }

  /** Serde settings returning generic records (any topic, printed as is). */
  Map<String, Object> genericSerde() {
    Map<String, Object> c = new HashMap<>(AvroSerdes.serdeConfig(registryUrl(), false));
    c.put(AvroSerdeConfig.USE_SPECIFIC_AVRO_READER, false);
    c.remove(AvroSerdeConfig.AVRO_DATUM_PROVIDER); // Apicurio's default: generic records
    return c;
  }

  private static String first(String a, String b, String c, String d) {
    for (String s : new String[] {a, b, c}) {
      if (s != null && !s.isBlank()) {
        return s;
      }
    }
    return d;
  }
}
