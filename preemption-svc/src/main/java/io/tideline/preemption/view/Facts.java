package io.tideline.preemption.view;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * What {@code jobs.lifecycle} has said about one job that prices or protects its eviction: last
 * (re)start (P3 protection, P1 run time), last preemption (P3 cooldown), last checkpoint (P4
 * progress lost), cache state (P4 warm-up) and progress (P5 near completion). Stored as one
 * tab-separated line: {@code started preempted checkpoint cacheWarm progress} ("-" when unknown).
 */
final class Facts {

  Instant startedAt;
  Instant lastPreemptedAt;
  Instant lastCheckpointAt;
  Boolean cacheWarm;
  Double progress;

  byte[] encode() {
    return String.join("\t", millis(startedAt), millis(lastPreemptedAt),
        millis(lastCheckpointAt), cacheWarm == null ? "-" : cacheWarm.toString(),
        progress == null ? "-" : progress.toString()).getBytes(StandardCharsets.UTF_8);
  }

  static Facts decode(byte[] bytes) {
    String[] f = new String(bytes, StandardCharsets.UTF_8).split("\t", -1);
    Facts x = new Facts();
    x.startedAt = instant(f[0]);
    x.lastPreemptedAt = instant(f[1]);
    x.lastCheckpointAt = instant(f[2]);
    x.cacheWarm = "-".equals(f[3]) ? null : Boolean.valueOf(f[3]);
    x.progress = "-".equals(f[4]) ? null : Double.valueOf(f[4]);
    return x;
  }

  private static String millis(Instant t) {
    return t == null ? "-" : Long.toString(t.toEpochMilli());
  }

  private static Instant instant(String s) {
    return "-".equals(s) ? null : Instant.ofEpochMilli(Long.parseLong(s));
  }
}
