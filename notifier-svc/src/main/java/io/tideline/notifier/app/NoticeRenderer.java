package io.tideline.notifier.app;

import io.quarkus.qute.Engine;
import io.quarkus.qute.Template;
import io.tideline.events.Notice;
import io.tideline.notifier.compose.Lang;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * Renders notices with the Qute templates in {@code templates/<lang>/}: the e-mail subject, a
 * text and an HTML body, and the Slack Block Kit JSON. The language is the recipient's (P7).
 */
@ApplicationScoped
public class NoticeRenderer {

  /**
   * A rendered message.
   *
   * @param subject e-mail subject
   * @param text plain-text body
   * @param html HTML body
   * @param slackJson Slack Block Kit payload
   */
  public record Rendered(String subject, String text, String html, String slackJson) {}

  private final Engine engine;

  public NoticeRenderer(Engine engine) {
    this.engine = engine;
  }

  /** Renders {@code notices} (one, or several as a digest) for {@code route}. */
  public Rendered render(List<Notice> notices, Route route) {
    MessageView view = MessageView.of(route.userId(), route.slackUserId(),
        notices.stream().map(n -> NoticeView.of(n, route.zone(), route.lang())).toList());
    Lang lang = route.lang();
    return new Rendered(
        render(lang, "subject.txt", view).strip(),
        render(lang, "body.txt", view),
        render(lang, "body.html", view),
        render(lang, "slack.json", view));
  }

  private String render(Lang lang, String name, MessageView view) {
    Template t = engine.getTemplate(lang.tag() + "/" + name);
    if (t == null) {
      throw new IllegalStateException("missing template " + lang.tag() + "/" + name);
    }
    return t.data("m", view).render();
  }
}
