package io.tideline.notifier.channel;

/**
 * A send that did not go through. Retryable failures (HTTP 5xx or 429, timeouts, connection and
 * SMTP errors) are retried with backoff; the others (a 4xx: the webhook is gone or the payload is
 * refused) are dead-lettered at once.
 */
public class SendFailure extends Exception {

  private final boolean retryable;

  public SendFailure(String message, boolean retryable, Throwable cause) {
    super(message, cause);
    this.retryable = retryable;
  }

  public boolean retryable() {
    return retryable;
  }
}
