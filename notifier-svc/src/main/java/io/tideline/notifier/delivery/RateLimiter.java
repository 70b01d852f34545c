package io.tideline.notifier.delivery;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * At most one send per {@code interval} per destination (Slack allows about one message per second
 * per webhook). Times are passed in, in nanoseconds of a monotonic clock, so it is testable.
 */
public final class RateLimiter {

  private final long intervalNanos;
  private final Map<String, Long> lastSend = new HashMap<>();

  public RateLimiter(Duration interval) {
    this.intervalNanos = interval.toNanos();
  }

  /** How long to wait before sending to {@code destination} at {@code nowNanos}. */
  public long waitNanos(String destination, long nowNanos) {
    Long last = lastSend.get(destination);
    return last == null ? 0 : Math.max(0, last + intervalNanos - nowNanos);
  }

  /** Notes a send to {@code destination} at {@code nowNanos}. */
  public void sent(String destination, long nowNanos) {
    lastSend.put(destination, nowNanos);
  }
}
