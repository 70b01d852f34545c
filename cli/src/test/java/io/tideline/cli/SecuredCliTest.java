package io.tideline.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.platform.security.AclPlan;
import io.tideline.platform.security.Identity;
import io.tideline.platform.security.KafkaAcls;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.SchemaRegistryServer;
import io.tideline.testkit.SecureKafkaBroker;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI on a secured cluster with the settings the Kubernetes deployment documents (issue #18
 * point 6): {@code deploy/k8s/examples/cli.properties}, filled with a KafkaUser's login and the
 * cluster CA's PKCS12 truststore, exactly as a Strimzi user's Secret and the CA Secret give them.
 * The broker is the real secured one (SCRAM over TLS, deny by default, generated ACLs).
 */
class SecuredCliTest {

  private static final Path TEMPLATE = Path.of("..", "deploy", "k8s", "examples", "cli.properties");

  static SecureKafkaBroker broker;
  static SchemaRegistryServer registry;

  @TempDir Path dir;

  record Run(int code, String out, String err) {}

  @BeforeAll
  static void start() {
    broker = SecureKafkaBroker.start(Arrays.stream(Identity.values()).map(Identity::user).toList());
    broker.createTopics(TopicCatalogue.all().stream()
        .map(t -> new NewTopic(t.name(), 1, (short) 1).configs(t.configs())).toList());
    broker.applyAcls(KafkaAcls.bindings(AclPlan.fromCatalogue()));
    registry = SchemaRegistryServer.start();
    Run register = run(new ArrayList<>(List.of("schemas", "register",
        "--registry=" + registry.url())));
    assertThat(register.code()).as(register.err()).isZero();
  }

  @AfterAll
  static void stop() {
    if (registry != null) {
      registry.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void shouldSubmitAsTheSubmitterWithTheDocumentedKubernetesSettings() throws Exception {
    Path config = config(Identity.SUBMITTER, null);

    Run submit = cli(config, "submit", job("job-k8s-1").toString());

    assertThat(submit.code()).as(submit.err()).isZero();
    assertThat(submit.out()).contains("submitted job-k8s-1 (TRAINING, 8 GPUs) to jobs.submitted-");
    Run tail = cli(config(Identity.OPERATOR, null), "tail", "jobs.submitted", "-n", "0");
    assertThat(tail.code()).as(tail.err()).isZero();
    assertThat(tail.out()).contains("\"jobId\": \"job-k8s-1\"");
  }

  @Test
  void shouldRefuseTheSubmitterWithAWrongPasswordAndSaySo() throws Exception {
    Path config = config(Identity.SUBMITTER, "not-the-password");

    Run submit = cli(config, "submit", job("job-k8s-2").toString());

    assertThat(submit.code()).isNotZero();
    assertThat(submit.out()).doesNotContain("submitted job-k8s-2");
    assertThat(submit.err()).containsIgnoringCase("authentication failed");
  }

  @Test
  void shouldRefuseTheSubmitterReadingAnotherUsersNotices() throws Exception {
    Run tail = cli(config(Identity.SUBMITTER, null), "tail", "notices", "-n", "0");

    assertThat(tail.code()).isNotZero();
    assertThat(tail.err()).containsIgnoringCase("not authorized");
  }

  /** The documented template with the user's login (or a wrong password) and the CA filled in. */
  private Path config(Identity user, String wrongPassword) throws Exception {
    Properties secret = wrongPassword == null ? broker.clientProperties(user.user())
        : broker.clientPropertiesWithPassword(user.user(), wrongPassword);
    String text = Files.readString(TEMPLATE)
        .replace("<the user's Secret, key sasl.jaas.config>", secret.getProperty("sasl.jaas.config"))
        .replace("<path of ca.p12 from Secret tideline-cluster-ca-cert>",
            secret.getProperty("ssl.truststore.location"))
        .replace("<Secret tideline-cluster-ca-cert, key ca.password>",
            secret.getProperty("ssl.truststore.password"));
    assertThat(text.lines().filter(l -> !l.startsWith("#"))).noneMatch(l -> l.contains("<"));
    Path file = dir.resolve(user.user() + ".properties");
    Files.writeString(file, text);
    return file;
  }

  private Path job(String id) throws Exception {
    Path file = dir.resolve(id + ".yaml");
    Files.writeString(file, """
        jobId: %s
        submittedAt: 2026-11-02T14:00:00Z
        tenant: search
        team: ranking
        user: carol
        workloadClass: TRAINING
        preemptible: true
        resources:
          gpuCount: 8
          gangSize: 8
          nodes: 1
        contacts:
          email: carol@example.com
        """.formatted(id));
    return file;
  }

  private static Run cli(Path config, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add(1, "--config=" + config);
    all.add(1, "--bootstrap=" + broker.bootstrapServers());
    all.add(1, "--registry=" + registry.url());
    return run(all);
  }

  private static Run run(List<String> args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = TidelineCli.commandLine(new PrintWriter(out, true), new PrintWriter(err, true))
        .execute(args.toArray(String[]::new));
    return new Run(code, out.toString(), err.toString());
  }
}
