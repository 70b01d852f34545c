package io.tideline.notifier.app;

import io.quarkus.qute.TemplateData;
import java.util.ArrayList;
import java.util.List;

/**
 * What one message carries to the templates: one notice, or a digest of several.
 *
 * @param digest whether it is a digest
 * @param count number of notices
 * @param userId recipient
 * @param mention Slack mention text ({@code <@U123> }) or empty
 * @param first the first notice (subject, single-notice layout)
 * @param notices all notices
 * @param chunks the notices in groups of at most {@value #CHUNK} (Slack limits blocks per message)
 */
@TemplateData
public record MessageView(boolean digest, int count, String userId, String mention,
    NoticeView first, List<NoticeView> notices, List<List<NoticeView>> chunks) {

  /** Notices per Slack section in a digest. */
  public static final int CHUNK = 10;

  /** The view of {@code notices} for {@code userId}. */
  public static MessageView of(String userId, String slackUserId, List<NoticeView> notices) {
    List<List<NoticeView>> chunks = new ArrayList<>();
    for (int i = 0; i < notices.size(); i += CHUNK) {
      chunks.add(notices.subList(i, Math.min(notices.size(), i + CHUNK)).stream()
          .map(NoticeView::json).toList());
    }
    return new MessageView(notices.size() > 1, notices.size(), userId,
        slackUserId == null ? "" : "<@" + slackUserId + "> ", notices.get(0), notices, chunks);
  }
}
