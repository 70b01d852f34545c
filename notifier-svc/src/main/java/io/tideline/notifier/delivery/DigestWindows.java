package io.tideline.notifier.delivery;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Event-time digest windows per user: the first notice opens a window of the configured length,
 * every later notice of that user inside it joins it, and all of them are released together at its
 * end, so a burst (50 preemptions in a minute) becomes one digest instead of 50 messages.
 */
public final class DigestWindows {

  private final Duration length;
  /** A user's open window: notices from {@code start} (inclusive) to {@code end} (exclusive). */
  private record Window(Instant start, Instant end) {}

  private final Map<String, Window> open = new HashMap<>();

  public DigestWindows(Duration length) {
    this.length = length;
  }

  /** The end of the window the notice of {@code user} at event time {@code t} belongs to. */
  public Instant windowEnd(String user, Instant t) {
    Window w = open.get(user);
    // 1. Inside the user's open window (a late notice up to its start counts too): join it.
    if (w != null && !t.isBefore(w.start()) && t.isBefore(w.end())) {
      return w.end();
    }
    // 2. Otherwise open a new window at t.
    Instant end = t.plus(length);
    if (w == null || !t.isBefore(w.start())) {
      open.put(user, new Window(t, end));
    }
    return end;
  }
}
