package io.tideline.telemetry.collect.dcgm;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A real HTTP server (JDK {@code HttpServer}) standing in for dcgm-exporter endpoints: each path
 * serves a body (a captured fixture) or fails with a status, switchable while a test runs.
 */
public final class ExporterServer implements AutoCloseable {

  private record Reply(int status, String body) {}

  private final HttpServer server;
  private final Map<String, Reply> replies = new ConcurrentHashMap<>();

  public ExporterServer() {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/", exchange -> {
      Reply r = replies.getOrDefault(exchange.getRequestURI().getPath(), new Reply(404, "no such exporter\n"));
      byte[] bytes = r.body().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      exchange.sendResponseHeaders(r.status(), bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    });
    server.start();
  }

  /** Serves {@code body} with 200 at {@code path}. */
  public ExporterServer serve(String path, String body) {
    replies.put(path, new Reply(200, body));
    return this;
  }

  /** Answers {@code status} at {@code path}, as a sick exporter does. */
  public ExporterServer fail(String path, int status) {
    replies.put(path, new Reply(status, "exporter unavailable\n"));
    return this;
  }

  public String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
