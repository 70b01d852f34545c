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

  private Ports() {}

  static int free() {
    try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
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
