package io.tideline.notifier.app;

import io.quarkus.qute.TemplateData;
import io.tideline.events.Notice;
import io.tideline.notifier.compose.Lang;
import io.tideline.notifier.compose.Wording;
import java.time.ZoneId;

/**
 * One notice as the templates see it: times already in the user's zone, durations in the user's
 * language. {@link #json()} gives the same view with every text JSON-escaped, for the Slack Block
 * Kit template.
 *
 * @param gpusAfter for SHRUNK: the GPUs the job restarts with, else null
 * @param runAfter for SHRUNK: its stretched expected run time in words, else empty
 */
@TemplateData
public record NoticeView(String kind, String jobId, String reason, Integer queuePosition,
    String eta, String etaBasis, String compensation, String quotaUrl, String noticeId,
    String decisionId, String when, Integer gpusAfter, String runAfter) {

  /** The view of {@code n} for a user in {@code zone} reading {@code lang}. */
  public static NoticeView of(Notice n, ZoneId zone, Lang lang) {
    return new NoticeView(n.getKind().name(), n.getJobId(), n.getReason(), n.getQueuePosition(),
        n.getEstimatedResume() == null ? "" : Wording.time(n.getEstimatedResume(), zone),
        n.getEstimateBasis(), n.getCompensation(), n.getQuotaRequestUrl(), n.getNoticeId(),
        n.getDecisionId(), Wording.time(n.getCreatedAt(), zone), n.getGpusAfter(),
        n.getExpectedRunSecondsAfter() == null || n.getExpectedRunSecondsAfter() <= 0 ? ""
            : Wording.duration(n.getExpectedRunSecondsAfter(), lang));
  }

  /** The same view with all texts escaped for a JSON string. */
  public NoticeView json() {
    return new NoticeView(kind, j(jobId), j(reason), queuePosition, j(eta), etaBasis,
        j(compensation), j(quotaUrl), j(noticeId), j(decisionId), j(when), gpusAfter,
        j(runAfter));
  }

  /** JSON string escaping (without the quotes). */
  public static String j(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder b = new StringBuilder(s.length() + 8);
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.toString();
  }
}
