package io.tideline.notifier.channel;

import io.tideline.notifier.app.NoticeRenderer.Rendered;
import io.tideline.notifier.app.Route;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Posts the Block Kit JSON to the user's Slack incoming webhook with the JDK HTTP client. 2xx is
 * delivered; 429 and 5xx and I/O errors or timeouts are retryable; other statuses are final.
 * Every post carries an {@code Idempotency-Key} header, the same on every attempt and re-send of
 * the message, for receivers (a relay, a custom webhook) that dedupe (ADR 0014).
 */
public final class SlackWebhookSender implements Sender {

  private final HttpClient http;
  private final Duration timeout;

  public SlackWebhookSender(Duration timeout) {
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  @Override
  public void send(Route route, Rendered message, String idempotencyKey) throws SendFailure {
    URI uri;
    try {
      uri = URI.create(route.slackWebhookUrl());
    } catch (IllegalArgumentException e) {
      throw new SendFailure("webhook URL is not a URL: " + e.getMessage(), false, e);
    }
    HttpRequest request = HttpRequest.newBuilder(uri)
        .timeout(timeout)
        .header("Content-Type", "application/json; charset=utf-8")
        .header("Idempotency-Key", idempotencyKey)
        .POST(HttpRequest.BodyPublishers.ofString(message.slackJson(), StandardCharsets.UTF_8))
        .build();
    HttpResponse<String> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new SendFailure("Slack webhook unreachable: " + e, true, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SendFailure("interrupted", true, e);
    }
    int s = response.statusCode();
    if (s >= 200 && s < 300) {
      return;
    }
    throw new SendFailure("Slack webhook answered HTTP " + s + ": " + abbreviate(response.body()),
        s == 429 || s >= 500, null);
  }

  private static String abbreviate(String body) {
    return body == null ? "" : body.length() > 200 ? body.substring(0, 200) + "…" : body;
  }
}
