package io.tideline.testkit;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A real Apicurio Registry (2.6.x) as a child process on a free loopback port, or the registry
 * named by {@code TIDELINE_REGISTRY_URL}. The distribution is provisioned by the
 * {@code deploy/local} module under {@code .tideline/apicurio}; no Docker is needed. Its storage
 * is an H2 database file (ADR 0013), as {@code ./tideline up} runs it: {@link #restart} (or a
 * kill -9 and {@link #restart}) keeps every schema and id.
 *
 * <p>It serves the native API at {@code /apis/registry/v2} (what our serde talks to) and the
 * Confluent-compatible API at {@code /apis/ccompat/v7}.
 */
public final class SchemaRegistryServer implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  private final String url;
  private final int port;
  private final Path storage;
  private volatile Process process;
  private final Path log;
  private final Map<String, String> properties;

  private SchemaRegistryServer(String url, int port, Path storage, Process process, Path log,
      Map<String, String> properties) {
    this.url = url;
    this.port = port;
    this.storage = storage;
    this.process = process;
    this.log = log;
    this.properties = Map.copyOf(properties);
  }

  /** The external registry if {@code TIDELINE_REGISTRY_URL} is set, else a new process. */
  public static SchemaRegistryServer start() {
    String external = System.getenv("TIDELINE_REGISTRY_URL");
    if (external != null && !external.isBlank()) {
      return new SchemaRegistryServer(stripSlash(external), -1, null, null, null, Map.of());
    }
    return startProcess();
  }

  /** Starts the registry process on a free port, storage in a new temporary folder. */
  public static SchemaRegistryServer startProcess() {
    try {
      return startProcess(Files.createTempDirectory("apicurio-storage-"), freePort());
    } catch (IOException e) {
      throw new IllegalStateException("no storage folder for the registry: " + e, e);
    }
  }

  /** Starts the registry process on {@code port} with its H2 storage under {@code storage}. */
  public static SchemaRegistryServer startProcess(Path storage, int port) {
    return startProcess(storage, port, Map.of());
  }

  /**
   * Starts the registry process on a free port, new storage, with {@code properties} as system
   * properties of the registry (e.g. its authentication settings, ADR 0027).
   */
  public static SchemaRegistryServer startProcess(Map<String, String> properties) {
    try {
      return startProcess(Files.createTempDirectory("apicurio-storage-"), freePort(), properties);
    } catch (IOException e) {
      throw new IllegalStateException("no storage folder for the registry: " + e, e);
    }
  }

  /** As {@link #startProcess(Path, int)}, with {@code properties} as the registry's settings. */
  public static SchemaRegistryServer startProcess(Path storage, int port,
      Map<String, String> properties) {
    try {
      Files.createDirectories(storage);
      Path log = Files.createTempFile("apicurio-registry-", ".log");
      SchemaRegistryServer server = new SchemaRegistryServer("http://127.0.0.1:" + port, port,
          storage, null, log, properties);
      server.launch();
      return server;
    } catch (IOException e) {
      throw new IllegalStateException("could not start the schema registry: " + e, e);
    }
  }

  private void launch() throws IOException {
    Path jar = runnerJar();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
        "-Dquarkus.http.host=127.0.0.1", "-Dquarkus.http.port=" + port,
        "-Dquarkus.log.level=WARN", "-Dquarkus.log.category.\"io.apicurio\".level=WARN"));
    properties.forEach((k, v) -> command.add("-D" + k + "=" + v));
    command.addAll(List.of("-jar", jar.toString()));
    ProcessBuilder pb = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    // WRITE_DELAY=0: every change is on disk before the registry answers, so a kill -9 right
    // after a registration loses nothing (H2's default keeps up to a second in memory)
    pb.environment().put("REGISTRY_DATASOURCE_URL",
        "jdbc:h2:file:" + storage.resolve("registry").toAbsolutePath() + ";WRITE_DELAY=0");
    Process p = pb.start();
    process = p;
    Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
    awaitReady();
  }

  /** The process id of the registry process (-1 for an external registry). */
  public long pid() {
    return process == null ? -1 : process.pid();
  }

  /**
   * Stops the registry ({@code forcibly}: SIGKILL, as a crash) and starts it again on the same
   * port with the same storage; returns once it is ready.
   */
  public void restart(boolean forcibly) {
    if (process == null) {
      throw new IllegalStateException("an external registry cannot be restarted from here");
    }
    stopProcess(forcibly);
    try {
      launch();
    } catch (IOException e) {
      throw new IllegalStateException("could not restart the schema registry: " + e, e);
    }
  }

  /** Stops the process ({@code forcibly}: SIGKILL) and waits until it has exited. */
  public void stopProcess(boolean forcibly) {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return;
    }
    if (forcibly) {
      p.destroyForcibly();
    } else {
      p.destroy();
    }
    try {
      if (!p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
        p.destroyForcibly();
        p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Root URL, e.g. {@code http://127.0.0.1:41234}. */
  public String url() {
    return url;
  }

  /** The native v2 API our serde uses. */
  public String apiV2() {
    return url + "/apis/registry/v2";
  }

  /** The Confluent-compatible API. */
  public String ccompat() {
    return url + "/apis/ccompat/v7";
  }

  /** GET a path under the root URL and return the body; fails on a non-2xx answer. */
  public String get(String path) {
    try {
      HttpResponse<String> r = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() / 100 != 2) {
        throw new IllegalStateException("GET " + path + " -> " + r.statusCode() + ": " + r.body());
      }
      return r.body();
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException("GET " + path + " failed: " + e, e);
    }
  }

  private void awaitReady() {
    Process process = this.process;
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the schema registry exited with " + process.exitValue()
            + " before it was ready; its log (" + log + "):\n" + tail());
      }
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(
            URI.create(apiV2() + "/system/info")).timeout(Duration.ofSeconds(2)).build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      sleep(200);
    }
    close();
    throw new IllegalStateException("the schema registry was not ready within " + START_TIMEOUT
        + "; its log (" + log + "):\n" + tail());
  }

  private String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /**
   * The provisioned {@code .tideline} folder: the {@code tideline-home} system property,
   * {@code TIDELINE_HOME}, or a {@code .tideline} folder above the working directory.
   */
  public static Optional<Path> home() {
    return Optional.ofNullable(System.getProperty("tideline-home"))
        .or(() -> Optional.ofNullable(System.getenv("TIDELINE_HOME")))
        .map(Path::of)
        .or(SchemaRegistryServer::findHomeAbove);
  }

  /** The runner jar under the {@code tideline-home} system property or a {@code .tideline} folder above. */
  static Path runnerJar() {
    Optional<Path> home = home();
    Path dir = home.map(h -> h.resolve("apicurio")).orElse(null);
    if (dir != null && Files.isDirectory(dir)) {
      try (Stream<Path> files = Files.list(dir)) {
        Optional<Path> jar = files.filter(f -> f.getFileName().toString().endsWith("-runner.jar"))
            .findFirst();
        if (jar.isPresent()) {
          return jar.get();
        }
      } catch (IOException e) {
        throw new IllegalStateException("cannot list " + dir + ": " + e, e);
      }
    }
    throw new IllegalStateException("no Apicurio Registry distribution found under " + dir
        + "; provision it with: ./mvnw -B -pl deploy/local install");
  }

  private static Optional<Path> findHomeAbove() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve(".tideline/apicurio"))) {
        return Optional.of(p.resolve(".tideline"));
      }
    }
    return Optional.empty();
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("no free port: " + e, e);
    }
  }

  private static String stripSlash(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stopProcess(false);
  }
}
