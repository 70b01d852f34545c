package io.tideline.faults;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Small process and port helpers of the suite. */
final class Ports {

  /**
   * Where the suite's listening ports come from: {@code -Dtideline.faults.ports=FIRST-LAST} (the
   * build passes the environment's {@code TIDELINE_FAULTS_PORTS}), so a run on a shared machine
   * stays inside the range it was given; unset, the operating system picks free ports.
   */
  static final String RANGE_PROPERTY = "tideline.faults.ports";

  private static int next = -1;

  private Ports() {}

  /**
   * A port nothing listens on, from the configured range (each port handed out once per run, so
   * two processes of the suite never get the same one before either binds it), or from the
   * operating system when no range is set.
   */
  static synchronized int free() {
    String range = System.getProperty(RANGE_PROPERTY, "").strip();
    if (range.isEmpty()) {
      return bindable(0);
    }
    String[] bounds = range.split("-");
    int first;
    int last;
    try {
      first = Integer.parseInt(bounds[0].strip());
      last = Integer.parseInt(bounds[bounds.length - 1].strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(RANGE_PROPERTY + " must be FIRST-LAST, got " + range);
    }
    if (first < 1024 || last > 65535 || first > last) {
      throw new IllegalArgumentException(RANGE_PROPERTY + " must be FIRST-LAST within"
          + " 1024-65535, got " + range);
    }
    if (next < first || next > last) {
      next = first;
    }
    for (int p = next; p <= last; p++) {
      if (bindable(p) > 0) {
        next = p + 1;
        return p;
      }
    }
    throw new IllegalStateException("no free port left in " + RANGE_PROPERTY + "=" + range);
  }

  /** Binds {@code port} on loopback (0: any) and returns it, or -1 if it is taken. */
  private static int bindable(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return s.getLocalPort();
    } catch (IOException e) {
      if (port == 0) {
        throw new IllegalStateException(e);
      }
      return -1;
    }
  }

  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** The repository root (set by the build; the working directory's parent otherwise). */
  static Path root() {
    String r = System.getProperty("tideline.root");
    return r != null ? Path.of(r) : Path.of("").toAbsolutePath().getParent();
  }

  static String run(List<String> cmd) throws IOException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] out;
    try (InputStream in = p.getInputStream()) {
      out = in.readAllBytes();
    }
    try {
      if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException(String.join(" ", cmd) + " failed:\n"
            + new String(out, StandardCharsets.UTF_8));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    return new String(out, StandardCharsets.UTF_8);
  }

  /** Waits until something listens on {@code port}; fails with the log's tail if it died. */
  static void awaitListening(int port, Process p, Path log) throws IOException {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        throw new IOException("process exited " + p.exitValue() + "; log:\n" + tail(log));
      }
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
        return;
      } catch (IOException e) {
        sleep(200);
      }
    }
    throw new IOException("nothing listens on " + port + " after 120 s; log:\n" + tail(log));
  }

  static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
