package io.tideline.core.preemption;

import java.time.Instant;

/** Time arithmetic of the hot loop, without the {@code Duration} a decision would allocate per job. */
final class Times {

  private Times() {}

  /** Exactly {@code Duration.between(from, to).toMillis()}, allocation-free. */
  static long millisBetween(Instant from, Instant to) {
    long seconds = to.getEpochSecond() - from.getEpochSecond();
    long nanos = to.getNano() - from.getNano();
    if (nanos < 0) {
      seconds--;
      nanos += 1_000_000_000L;
    }
    if (seconds < 0) { // Duration.toMillis's rounding for negative durations
      seconds++;
      nanos -= 1_000_000_000L;
    }
    return Math.addExact(Math.multiplyExact(seconds, 1000L), nanos / 1_000_000L);
  }
}
