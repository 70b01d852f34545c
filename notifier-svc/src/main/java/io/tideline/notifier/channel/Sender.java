package io.tideline.notifier.channel;

import io.tideline.notifier.app.NoticeRenderer.Rendered;
import io.tideline.notifier.app.Route;

/** Sends one rendered message to one user on one channel (O3). */
public interface Sender {

  /**
   * Sends, or throws why not. {@code idempotencyKey} is the same for every attempt and every
   * re-send of this message (ADR 0014): the channel puts it where its receivers can dedupe on it.
   */
  void send(Route route, Rendered message, String idempotencyKey) throws SendFailure;
}
