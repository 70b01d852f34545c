package io.tideline.notifier.delivery;

import java.time.Duration;

/**
 * Exponential retry backoff for a failed send (5xx, timeout): {@code initial × multiplier^(n-1)},
 * capped at {@code max}.
 *
 * @param initial delay after the first failure
 * @param multiplier growth per further failure
 * @param max cap
 */
public record Backoff(Duration initial, double multiplier, Duration max) {

  /** Delay after the {@code failures}-th consecutive failure (1-based). */
  public Duration after(int failures) {
    double ms = initial.toMillis() * Math.pow(multiplier, Math.max(0, failures - 1));
    return Duration.ofMillis((long) Math.min(ms, max.toMillis()));
  }
}
