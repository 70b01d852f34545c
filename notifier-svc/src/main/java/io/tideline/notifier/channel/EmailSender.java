package io.tideline.notifier.channel;

import io.quarkus.mailer.Mail;
import io.quarkus.mailer.Mailer;
import io.tideline.notifier.app.NoticeRenderer.Rendered;
import io.tideline.notifier.app.Route;

/**
 * Sends the notice as a multipart e-mail (text and HTML) over SMTP with the Quarkus mailer. Any
 * SMTP or connection error is retryable. The {@code Message-ID} is derived from the idempotency
 * key, so a message re-sent after a crash carries the same id and mail stores and clients that
 * dedupe on it show it once (ADR 0014).
 */
public final class EmailSender implements Sender {

  private final Mailer mailer;

  public EmailSender(Mailer mailer) {
    this.mailer = mailer;
  }

  @Override
  public void send(Route route, Rendered message, String idempotencyKey) throws SendFailure {
    try {
      mailer.send(Mail.withText(route.email(), message.subject(), message.text())
          .setHtml(message.html()).addHeader("Message-ID", messageId(idempotencyKey))
          .addHeader("X-Idempotency-Key", idempotencyKey));
    } catch (RuntimeException e) {
      throw new SendFailure("SMTP send to " + route.email() + " failed: " + e, true, e);
    }
  }

  /** The RFC 5322 Message-ID of the message with {@code idempotencyKey}. */
  public static String messageId(String idempotencyKey) {
    return "<" + idempotencyKey + "@notices.tideline>";
  }
}
