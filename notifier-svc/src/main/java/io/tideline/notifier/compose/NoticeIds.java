package io.tideline.notifier.compose;

import io.tideline.events.NoticeKind;

/**
 * Deterministic notice ids: the same source decision, job and kind always give the same id, so a
 * restart or an audit replay recomputes ids already delivered and sends nothing twice.
 */
public final class NoticeIds {

  private NoticeIds() {}

  /** {@code <decisionId>/<jobId>/<KIND>}. */
  public static String of(String decisionId, String jobId, NoticeKind kind) {
    return decisionId + "/" + jobId + "/" + kind.name();
  }
}
