package io.tideline.testkit;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * A real, secured Kafka broker for tests (issue #18, ADR 0022): one KRaft process whose client
 * listener is SASL/SCRAM-SHA-512 over TLS, whose controller listener is TLS with client
 * authentication, with {@code StandardAuthorizer} and {@code allow.everyone.if.no.acl.found=false}.
 * Its files (a throwaway CA and certificates, random SCRAM passwords created at format time, one
 * client properties file per user) are made by {@code deploy/local/secure-broker.sh}, the script
 * {@code ./tideline up --secure} runs, so a test here proves the local secured configuration.
 *
 * <p>Opt-in: {@link KafkaBroker} (what every other test uses) stays the open in-JVM broker. Needs
 * bash, the JDK's {@code keytool} and the Kafka libraries {@code deploy/local} provisions into
 * {@code .tideline/kafka/libs}.
 */
public final class SecureKafkaBroker implements AutoCloseable {

  /** The provisioning identity (a super user): topics, ACLs, credentials. Never a service's. */
  public static final String ADMIN = "tideline-admin";

  private final Path dir;
  private final int port;
  private final Process process;
  private final Path log;

  private SecureKafkaBroker(Path dir, int port, Process process, Path log) {
    this.dir = dir;
    this.port = port;
    this.process = process;
    this.log = log;
  }

  /** Prepares and starts a secured broker on free loopback ports, with SCRAM credentials for {@code users}. */
  public static SecureKafkaBroker start(Collection<String> users) {
    Path home = SchemaRegistryServer.home().orElseThrow(() -> new IllegalStateException(
        "no .tideline folder found; provision it with ./mvnw -B -pl deploy/local install"));
    Path libs = home.resolve("kafka/libs");
    Path script = home.getParent().resolve("deploy/local/secure-broker.sh");
    if (!Files.isDirectory(libs) || !Files.isRegularFile(script)) {
      throw new IllegalStateException("the secured broker needs " + libs + " and " + script
          + "; provision them with ./mvnw -B -pl deploy/local install");
    }
    try {
      Path dir = Files.createTempDirectory("kafka-secure-");
      int port = SchemaRegistryServer.freePort();
      int controller = SchemaRegistryServer.freePort();
      List<String> cmd = new ArrayList<>(List.of("bash", script.toString(), dir.toString(),
          String.valueOf(port), String.valueOf(controller), libs.toString()));
      cmd.addAll(users);
      ProcessBuilder prepare = new ProcessBuilder(cmd).redirectErrorStream(true);
      prepare.environment().put("JAVA_HOME", System.getProperty("java.home"));
      Process p = prepare.start();
      String out = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("secure-broker.sh failed: " + out);
      }
      Path log = dir.resolve("broker.log");
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process broker = new ProcessBuilder(java, "-Xmx384m", "-XX:TieredStopAtLevel=1",
          "-Dlog4j2.configurationFile=" + home.getParent().resolve("deploy/local/log4j2.properties"),
          "-cp", libs + "/*", "kafka.Kafka", dir.resolve("server.properties").toString())
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .start();
      Runtime.getRuntime().addShutdownHook(new Thread(broker::destroyForcibly));
      SecureKafkaBroker b = new SecureKafkaBroker(dir, port, broker, log);
      b.awaitReady();
      return b;
    } catch (IOException e) {
      throw new IllegalStateException("could not start the secured broker: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private void awaitReady() {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    Exception last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the secured broker exited: " + tail());
      }
      try (Admin admin = admin()) {
        admin.describeCluster().nodes().get(10, TimeUnit.SECONDS);
        return;
      } catch (Exception e) {
        last = e;
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    close();
    throw new IllegalStateException("the secured broker did not answer within 120 s: " + last
        + "\n" + tail());
  }

  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /** The folder holding its PKI, credentials, client settings, data and log. */
  public Path directory() {
    return dir;
  }

  /** The client settings of a user created at start (SASL_SSL, SCRAM-SHA-512, its password, the CA). */
  public Properties clientProperties(String user) {
    Path file = dir.resolve("clients").resolve(user + ".properties");
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("no credentials for " + user + " (start it with that user)");
    }
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file)) {
      p.load(r);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file + ": " + e, e);
    }
    return p;
  }

  /** A user's settings with another password: what a client with a bad credential sends. */
  public Properties clientPropertiesWithPassword(String user, String password) {
    Properties p = clientProperties(user);
    p.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required"
        + " username=\"" + user + "\" password=\"" + password + "\";");
    return p;
  }

  /** TLS to the client listener with the CA, but no SASL credentials at all. */
  public Properties anonymousTlsProperties() {
    Properties p = clientProperties(ADMIN);
    p.remove("sasl.jaas.config");
    p.remove("sasl.mechanism");
    p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
    return p;
  }

  /** Plaintext to the client listener, as today's open clients connect. */
  public Properties plaintextProperties() {
    Properties p = new Properties();
    p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    return p;
  }

  /** A new admin client as {@link #ADMIN}; the caller closes it. */
  public Admin admin() {
    return Admin.create(clientProperties(ADMIN));
  }

  /** Creates topics as {@link #ADMIN}; existing ones are kept. */
  public void createTopics(Collection<NewTopic> topics) {
    try (Admin admin = admin()) {
      for (var f : admin.createTopics(topics).values().values()) {
        try {
          f.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw e;
          }
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("could not create topics: " + e, e);
    }
  }

  /** Applies ACL bindings as {@link #ADMIN} and waits until the broker holds all of them. */
  public void applyAcls(Collection<AclBinding> bindings) {
    try (Admin admin = admin()) {
      admin.createAcls(bindings).all().get(60, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (admin.describeAcls(org.apache.kafka.common.acl.AclBindingFilter.ANY).values()
          .get(30, TimeUnit.SECONDS).size() < bindings.size()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the broker does not list the ACLs after 60 s");
        }
        Thread.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (Exception e) {
      throw new IllegalStateException("could not apply ACLs: " + e, e);
    }
  }

  /** The broker's log, last lines (for failure messages and authorizer denials). */
  public String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** Whether the broker process runs. */
  public boolean alive() {
    return process.isAlive();
  }


  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
