package io.tideline.faults;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One Tideline service as the process a user runs: {@code java -jar
 * <module>/target/quarkus-app/quarkus-run.jar} with the settings {@code ./tideline up} gives it.
 * {@link #kill9} is SIGKILL (no shutdown hook runs), {@link #start} brings it back with the same
 * state directory.
 */
final class ServiceProcess implements AutoCloseable {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  final String name;
  final int port;
  private final List<String> settings;
  private final Path log;
  private Process process;

  ServiceProcess(String name, List<String> settings, Path logs) {
    this.name = name;
    this.port = Ports.free();
    this.settings = settings;
    this.log = logs.resolve(name + ".log");
  }

  void start() throws IOException {
    Path jar = Ports.root().resolve(name).resolve("target/quarkus-app/quarkus-run.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " is missing: build the services first (./mvnw install)");
    }
    List<String> cmd = new ArrayList<>(List.of(Ports.java(), "-Xmx256m", "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1", "-Dquarkus.http.host=127.0.0.1",
        "-Dquarkus.http.port=" + port));
    cmd.addAll(settings);
    cmd.addAll(List.of("-jar", jar.toString()));
    process = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
  }

  /** Waits until {@code /q/health/ready} answers 200. */
  void awaitReady(Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(name + " exited " + process.exitValue() + "; log:\n"
            + Ports.tail(log));
      }
      if (status("/q/health/ready") == 200) {
        return;
      }
      Ports.sleep(500);
    }
    throw new IllegalStateException(name + " not ready within " + within + "; log:\n"
        + Ports.tail(log));
  }

  /** HTTP status of a GET on the service (-1 when it does not answer). */
  int status(String path) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create(url(path)))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** The body of a GET, or the failure in words. */
  String get(String path) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create(url(path)))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException | InterruptedException e) {
      return "unreachable: " + e;
    }
  }

  /** POSTs JSON; returns the status. */
  int post(String path, String json) {
    return send("POST", path, json);
  }

  /** PUTs JSON; returns the status. */
  int put(String path, String json) {
    return send("PUT", path, json);
  }

  private int send(String method, String path, String json) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create(url(path)))
          .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(json)).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  String url(String path) {
    return "http://127.0.0.1:" + port + path;
  }

  boolean alive() {
    return process != null && process.isAlive();
  }

  /** SIGKILL: no shutdown hook, no commit, no flush. */
  void kill9() {
    process.destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  Path log() {
    return log;
  }

  @Override
  public void close() {
    if (process != null && process.isAlive()) {
      process.destroy();
      try {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
      }
    }
  }
}
