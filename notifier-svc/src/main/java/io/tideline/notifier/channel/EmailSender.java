package io.tideline.notifier.channel;

import io.quarkus.mailer.Mail;
import io.quarkus.mailer.Mailer;
import io.tideline.notifier.app.NoticeRenderer.Rendered;
import io.tideline.notifier.app.Route;

/**
 * Sends the notice as a multipart e-mail (text and HTML) over SMTP with the Quarkus mailer. Any
 * SMTP or connection error is retryable.
 */
public final class EmailSender implements Sender {

  private final Mailer mailer;

  public EmailSender(Mailer mailer) {
    this.mailer = mailer;
  }

  @Override
  public void send(Route route, Rendered message) throws SendFailure {
    try {
      mailer.send(Mail.withText(route.email(), message.subject(), message.text())
          .setHtml(message.html()));
    } catch (RuntimeException e) {
      throw new SendFailure("SMTP send to " + route.email() + " failed: " + e, true, e);
    }
  }
}
