package io.tideline.notifier.app;

import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import jakarta.mail.BodyPart;
import jakarta.mail.Multipart;
import jakarta.mail.Part;
import jakarta.mail.internet.MimeMessage;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/** What arrived at the real SMTP and webhook servers, read back for assertions. */
final class Channels {

  private Channels() {}

  /** Bodies of the webhook posts to {@code /hooks/<hook>} that were answered 200, oldest first. */
  static List<String> slackDelivered(String hook) {
    return slackEvents(hook).stream().filter(e -> e.getResponse().getStatus() == 200)
        .map(e -> e.getRequest().getBodyAsString()).toList();
  }

  /** Number of posts to {@code /hooks/<hook>}, whatever the answer. */
  static int slackAttempts(String hook) {
    return slackEvents(hook).size();
  }

  /** All webhook posts answered 200. */
  static long slackDeliveredTotal() {
    return ChannelServersResource.slack.getAllServeEvents().stream()
        .filter(e -> e.getResponse().getStatus() == 200).count();
  }

  private static List<ServeEvent> slackEvents(String hook) {
    return ChannelServersResource.slack.getAllServeEvents().stream()
        .filter(e -> e.getRequest().getUrl().equals("/hooks/" + hook))
        .sorted(Comparator.comparing(e -> e.getRequest().getLoggedDate()))
        .toList();
  }

  /** E-mails received for {@code address}. */
  static List<MimeMessage> mails(String address) {
    return Arrays.asList(ChannelServersResource.smtp.getReceivedMessagesForDomain(address));
  }

  /** All e-mails received. */
  static int mailTotal() {
    return ChannelServersResource.smtp.getReceivedMessages().length;
  }

  /** The decoded part of {@code mimeType} (text/plain or text/html) of a message. */
  static String part(MimeMessage m, String mimeType) {
    try {
      String found = find(m, mimeType);
      if (found == null) {
        throw new AssertionError("no " + mimeType + " part in " + m.getSubject());
      }
      return found;
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static String find(Part p, String mimeType) throws Exception {
    if (p.isMimeType(mimeType)) {
      return p.getContent().toString();
    }
    if (p.isMimeType("multipart/*")) {
      Multipart mp = (Multipart) p.getContent();
      for (int i = 0; i < mp.getCount(); i++) {
        BodyPart bp = mp.getBodyPart(i);
        String s = find(bp, mimeType);
        if (s != null) {
          return s;
        }
      }
    }
    return null;
  }

  static String subject(MimeMessage m) {
    try {
      return m.getSubject();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
