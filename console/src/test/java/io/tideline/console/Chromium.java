package io.tideline.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * A real headless Chromium driven over the DevTools protocol from Java's own HTTP client and
 * WebSocket (no Selenium): one page, navigate, evaluate, screenshot.
 */
public final class Chromium implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration START = Duration.ofSeconds(60);

  private final Process process;
  private final Path profile;
  private final WebSocket socket;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();

  private Chromium(Process process, Path profile, WebSocket socket) {
    this.process = process;
    this.profile = profile;
    this.socket = socket;
  }

  /** Starts {@code chromium} headless and opens one blank page of {@code width} × {@code height}. */
  public static Chromium start(Path binary, int width, int height) throws Exception {
    Path profile = Files.createTempDirectory("tideline-chromium");
    Process p = new ProcessBuilder(binary.toString(), "--headless=new", "--no-sandbox",
        "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--hide-scrollbars",
        "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
        "--user-data-dir=" + profile, "--window-size=" + width + "," + height, "about:blank")
        .redirectErrorStream(true).redirectOutput(profile.resolve("chromium.log").toFile()).start();
    Path portFile = profile.resolve("DevToolsActivePort");
    Instant deadline = Instant.now().plus(START);
    while (!Files.exists(portFile) || Files.readAllLines(portFile).size() < 2) {
      if (!p.isAlive() || Instant.now().isAfter(deadline)) {
        p.destroyForcibly();
        throw new IllegalStateException("chromium did not open its DevTools port: "
            + Files.readString(profile.resolve("chromium.log")));
      }
      Thread.sleep(100);
    }
    int port = Integer.parseInt(Files.readAllLines(portFile).get(0).trim());
    HttpClient http = HttpClient.newHttpClient();
    JsonNode targets = JSON.readTree(http.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + port + "/json/list")).build(),
        HttpResponse.BodyHandlers.ofString()).body());
    String ws = null;
    for (JsonNode t : targets) {
      if ("page".equals(t.path("type").asText())) {
        ws = t.path("webSocketDebuggerUrl").asText();
        break;
      }
    }
    if (ws == null) {
      p.destroyForcibly();
      throw new IllegalStateException("chromium has no page target: " + targets);
    }
    Chromium[] self = new Chromium[1];
    StringBuilder partial = new StringBuilder();
    WebSocket socket = http.newWebSocketBuilder().buildAsync(URI.create(ws),
        new WebSocket.Listener() {
          @Override
          public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
              String message = partial.toString();
              partial.setLength(0);
              self[0].receive(message);
            }
            w.request(1);
            return null;
          }
        }).get(30, TimeUnit.SECONDS);
    self[0] = new Chromium(p, profile, socket);
    self[0].call("Page.enable", Map.of());
    self[0].call("Emulation.setDeviceMetricsOverride", Map.of("width", width, "height", height,
        "deviceScaleFactor", 1, "mobile", false));
    return self[0];
  }

  private void receive(String message) {
    try {
      JsonNode m = JSON.readTree(message);
      if (m.has("id")) {
        CompletableFuture<JsonNode> f = pending.remove(m.get("id").asInt());
        if (f != null) {
          f.complete(m);
        }
      }
    } catch (IOException e) {
      // not JSON: ignore (events we do not wait for)
    }
  }

  /** One DevTools command; its result, or an error naming the command. */
  public JsonNode call(String method, Map<String, Object> params) throws Exception {
    int id = ids.incrementAndGet();
    ObjectNode msg = JSON.createObjectNode().put("id", id).put("method", method);
    msg.set("params", JSON.valueToTree(params));
    CompletableFuture<JsonNode> f = new CompletableFuture<>();
    pending.put(id, f);
    socket.sendText(JSON.writeValueAsString(msg), true).get(30, TimeUnit.SECONDS);
    JsonNode reply = f.get(60, TimeUnit.SECONDS);
    if (reply.has("error")) {
      throw new IllegalStateException(method + " failed: " + reply.get("error"));
    }
    return reply.path("result");
  }

  public void navigate(String url) throws Exception {
    call("Page.navigate", Map.of("url", url));
    await(Duration.ofSeconds(60), () -> "complete".equals(evalQuietly("document.readyState")));
  }

  /** The value of a JavaScript expression in the page. */
  public String eval(String expression) throws Exception {
    JsonNode r = call("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true));
    return r.path("result").path("value").asText(null);
  }

  private String evalQuietly(String expression) {
    try {
      return eval(expression);
    } catch (Exception e) {
      return null;
    }
  }

  /** Waits until the condition holds in the page (polled; fails after {@code bound}). */
  public void awaitJs(Duration bound, String condition) {
    await(bound, () -> "true".equals(evalQuietly("String(" + condition + ")")));
  }

  /** The page as PNG, full height. */
  public byte[] screenshot() throws Exception {
    JsonNode r = call("Page.captureScreenshot", Map.of("format", "png",
        "captureBeyondViewport", true));
    return Base64.getDecoder().decode(r.path("data").asText());
  }

  private static void await(Duration bound, BooleanSupplier condition) {
    Instant deadline = Instant.now().plus(bound);
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("not within " + bound);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  @Override
  public void close() throws Exception {
    socket.abort();
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    try (Stream<Path> files = Files.walk(profile)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
