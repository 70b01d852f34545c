package io.tideline.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Confluent's own Python client ({@code confluent-kafka} with its Avro serde over
 * {@code fastavro}, from PyPI) as an independent client of our topics: it knows nothing of
 * Apicurio and speaks the Confluent wire format to the registry's {@code /apis/ccompat/v7}
 * (issue #16 finding 7). The test installs it itself into {@code .tideline/python} (CI is a clean
 * clone); a machine without {@code python3} skips the test with that reason.
 */
public final class ConfluentPythonClient {

  /** The client version installed, pinned. */
  public static final String PACKAGE = "confluent-kafka[avro]==2.16.1";

  private static final ObjectMapper JSON = new ObjectMapper();
  private final Path lib;
  private final Path script;

  private ConfluentPythonClient(Path lib, Path script) {
    this.lib = lib;
    this.script = script;
  }

  /**
   * The client, installed under {@code .tideline/python} if it is not there yet; skips the
   * calling test when this machine has no {@code python3}.
   */
  public static ConfluentPythonClient install() {
    Assumptions.assumeTrue(hasPython(),
        "python3 is not on this machine: the Confluent-client interoperability check needs it"
            + " (CI has it); skipped");
    Path home = SchemaRegistryServer.home().orElseThrow(() -> new IllegalStateException(
        "no .tideline folder: provision it with ./mvnw -pl deploy/local install"));
    Path lib = home.resolve("python").resolve("lib");
    try {
      if (!Files.isDirectory(lib.resolve("confluent_kafka"))
          || !Files.isDirectory(lib.resolve("fastavro"))) {
        Files.createDirectories(lib);
        run(List.of("python3", "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            "--no-input", "--target", lib.toString(), PACKAGE), null, 600);
      }
      Path script = Files.createTempFile("confluent_client", ".py");
      try (InputStream in = ConfluentPythonClient.class.getResourceAsStream(
          "interop/confluent_client.py")) {
        Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
      }
      return new ConfluentPythonClient(lib, script);
    } catch (IOException e) {
      throw new IllegalStateException("could not install " + PACKAGE + ": " + e, e);
    }
  }

  /** Produces one {@code JobSubmitted} with the latest published schema of {@code topic}. */
  public JsonNode produceJob(String bootstrap, String registryRoot, String topic, String jobId) {
    List<JsonNode> out = python(List.of("produce-job", bootstrap, ccompat(registryRoot), topic,
        jobId));
    return out.get(out.size() - 1);
  }

  /**
   * Decodes every record of {@code topics} with Confluent's deserializer and returns one line per
   * record (topic, partition, offset, schemaId, reencoded: hex of the record re-encoded with its
   * writer schema, fields).
   */
  public List<JsonNode> decode(String bootstrap, String registryRoot, List<String> topics) {
    List<String> args = new ArrayList<>(List.of("decode", bootstrap, ccompat(registryRoot)));
    args.addAll(topics);
    return python(args);
  }

  private List<JsonNode> python(List<String> args) {
    List<String> cmd = new ArrayList<>(List.of("python3", script.toString()));
    cmd.addAll(args);
    String out = run(cmd, lib, 300);
    List<JsonNode> lines = new ArrayList<>();
    for (String line : out.split("\n")) {
      if (line.startsWith("{")) {
        try {
          lines.add(JSON.readTree(line));
        } catch (IOException e) {
          throw new IllegalStateException("not JSON: " + line, e);
        }
      }
    }
    return lines;
  }

  private static String ccompat(String registryRoot) {
    return registryRoot + "/apis/ccompat/v7";
  }

  private static boolean hasPython() {
    try {
      Process p = new ProcessBuilder("python3", "--version").redirectErrorStream(true).start();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static String run(List<String> cmd, Path pythonPath, int timeoutSeconds) {
    try {
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
      if (pythonPath != null) {
        pb.environment().put("PYTHONPATH", pythonPath.toString());
      }
      Process p = pb.start();
      byte[] bytes;
      try (InputStream in = p.getInputStream()) {
        bytes = in.readAllBytes();
      }
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", cmd) + " timed out");
      }
      String out = new String(bytes, StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", cmd) + " exited " + p.exitValue()
            + ":\n" + out);
      }
      return out;
    } catch (IOException e) {
      throw new IllegalStateException(String.join(" ", cmd) + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
