package io.tideline.notifier.channel;

import io.tideline.notifier.app.NoticeRenderer.Rendered;
import io.tideline.notifier.app.Route;

/** Sends one rendered message to one user on one channel (O3). */
public interface Sender {

  /** Sends, or throws why not. */
  void send(Route route, Rendered message) throws SendFailure;
}
