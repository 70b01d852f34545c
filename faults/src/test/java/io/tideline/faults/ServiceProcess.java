package io.tideline.faults;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
  /** Its HTTP port (a new one if the first was taken between choosing and binding it). */
  volatile int port;
  private static final int PORT_RETRIES = 3;

  private final List<String> settings;
  private final Path log;
  private Process process;
  private long logStart;

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
    if (Boolean.getBoolean("tideline.faults.jfr")) {
      // a profile of each service run, for finding out where the time goes (not asserted on)
      cmd.add("-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
          + log.resolveSibling(name + "-" + ProcessHandle.current().pid() + "-"
              + System.nanoTime() + ".jfr"));
    }
    cmd.addAll(settings);
    cmd.addAll(List.of("-jar", jar.toString()));
    logStart = Files.exists(log) ? Files.size(log) : 0;
    process = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
  }

  /**
   * Whether the run that just exited could not bind its HTTP port: a port chosen free can be
   * taken before the service binds it (on a shared machine the suite's range lies inside the
   * operating system's ephemeral range, so any outgoing connection may get it).
   */
  private boolean portTaken() {
    try {
      byte[] all = Files.readAllBytes(log);
      String run = new String(all, (int) Math.min(logStart, all.length),
          (int) (all.length - Math.min(logStart, all.length)), StandardCharsets.UTF_8);
      return run.contains("Port " + port + " seems to be in use");
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Waits until {@code /q/health/ready} answers 200; a run that found its port taken is started
   * again on another one (at most {@value #PORT_RETRIES} times).
   */
  void awaitReady(Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    int retries = 0;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        if (retries < PORT_RETRIES && portTaken()) {
          retries++;
          port = Ports.free();
          try {
            start();
          } catch (IOException e) {
            throw new IllegalStateException(name + " could not be started again: " + e, e);
          }
          continue;
        }
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

  long pid() {
    return process.pid();
  }

  /** CPU time the process has used so far (user + system, from {@code /proc/<pid>/stat}), ms. */
  long cpuMillis() {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // fields 14 and 15 of stat (utime, stime) are 12 and 13 after the command; clock ticks
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 1000 / 100;
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("cannot read the CPU time of " + name + ": " + e, e);
    }
  }

  /**
   * A memory figure of the running process from {@code /proc/<pid>/status}, in KiB:
   * {@code VmRSS} (resident now) or {@code VmHWM} (the resident peak since it started).
   */
  long memoryKib(String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()),
          "status"))) {
        if (line.startsWith(field + ":")) {
          return Long.parseLong(line.substring(field.length() + 1).replace("kB", "").strip());
        }
      }
    } catch (IOException | NumberFormatException e) {
      throw new IllegalStateException("cannot read " + field + " of " + name + ": " + e, e);
    }
    throw new IllegalStateException("no " + field + " in /proc/" + process.pid() + "/status");
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
