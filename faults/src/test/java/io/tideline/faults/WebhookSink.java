package io.tideline.faults;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * A real HTTP server standing for Slack's incoming webhooks: records every post (path,
 * {@code Idempotency-Key} header, body) and answers 200 after {@link #delayMillis}, so a test can
 * kill the notifier while posts are in flight.
 */
final class WebhookSink implements AutoCloseable {

  /** One post received. */
  record Post(String path, String idempotencyKey, String body) {}

  private final HttpServer server;
  final List<Post> posts = new CopyOnWriteArrayList<>();
  volatile long delayMillis;

  WebhookSink() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), Ports.free()), 0);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.createContext("/", exchange -> {
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      Ports.sleep(delayMillis);
      posts.add(new Post(exchange.getRequestURI().getPath(),
          exchange.getRequestHeaders().getFirst("Idempotency-Key"),
          new String(body, StandardCharsets.UTF_8)));
      byte[] ok = "ok".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, ok.length);
      exchange.getResponseBody().write(ok);
      exchange.close();
    });
    server.start();
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
