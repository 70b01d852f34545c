package io.tideline.notifier.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A burst becomes one digest; rate limits and backoff are plain arithmetic. */
class DigestAndOutboxTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");

  @Test
  void shouldReleaseFiftyPreemptionsInOneMinuteAsOneDigest() {
    DigestWindows windows = new DigestWindows(Duration.ofSeconds(60));
    Outbox<String> outbox = new Outbox<>();
    // 1. 50 notices for one user, one a second.
    for (int i = 0; i < 50; i++) {
      Instant t = T0.plusSeconds(i);
      outbox.add(new Outbox.Entry<>("n" + i + "|SLACK", "alice", Channel.SLACK,
          windows.windowEnd("alice", t), t, true, "n" + i));
    }
    // 2. Nothing is due before the window ends; at its end exactly one batch of 50.
    assertThat(outbox.due(T0.plusSeconds(59))).isEmpty();
    List<Outbox.Batch<String>> due = outbox.due(T0.plusSeconds(60));
    assertThat(due).hasSize(1);
    assertThat(due.get(0).digest()).isTrue();
    assertThat(due.get(0).entries()).hasSize(50);
    assertThat(due.get(0).entries().get(0).payload()).isEqualTo("n0");
    assertThat(due.get(0).entries().get(49).payload()).isEqualTo("n49"); // event-time order
  }

  @Test
  void shouldOpenANewWindowAfterTheLastOneClosedAndKeepUsersApart() {
    DigestWindows windows = new DigestWindows(Duration.ofSeconds(60));
    assertThat(windows.windowEnd("alice", T0)).isEqualTo(T0.plusSeconds(60));
    assertThat(windows.windowEnd("bob", T0.plusSeconds(30))).isEqualTo(T0.plusSeconds(90));
    assertThat(windows.windowEnd("alice", T0.plusSeconds(59))).isEqualTo(T0.plusSeconds(60));
    assertThat(windows.windowEnd("alice", T0.plusSeconds(60))).isEqualTo(T0.plusSeconds(120));
  }

  @Test
  void shouldSendNonDigestibleEntriesAloneAndIgnoreDuplicates() {
    Outbox<String> outbox = new Outbox<>();
    assertThat(outbox.add(new Outbox.Entry<>("a|EMAIL", "u", Channel.EMAIL, T0, T0, false, "a"))).isTrue();
    assertThat(outbox.add(new Outbox.Entry<>("a|EMAIL", "u", Channel.EMAIL, T0, T0, false, "a"))).isFalse();
    outbox.add(new Outbox.Entry<>("b|EMAIL", "u", Channel.EMAIL, T0, T0, false, "b"));
    outbox.add(new Outbox.Entry<>("b|SLACK", "u", Channel.SLACK, T0, T0, false, "b"));
    List<Outbox.Batch<String>> due = outbox.due(T0);
    assertThat(due).hasSize(3).noneMatch(Outbox.Batch::digest);
    outbox.remove("a|EMAIL");
    assertThat(outbox.size()).isEqualTo(2);
  }

  @Test
  void shouldWaitOneIntervalBetweenPostsToOneWebhookOnly() {
    RateLimiter limiter = new RateLimiter(Duration.ofSeconds(1));
    long t = 1_000_000_000L;
    assertThat(limiter.waitNanos("hook-a", t)).isZero();
    limiter.sent("hook-a", t);
    assertThat(limiter.waitNanos("hook-a", t + 200_000_000L)).isEqualTo(800_000_000L);
    assertThat(limiter.waitNanos("hook-b", t + 200_000_000L)).isZero();
    assertThat(limiter.waitNanos("hook-a", t + 1_500_000_000L)).isZero();
  }

  @Test
  void shouldBackOffExponentiallyUpToTheCap() {
    Backoff b = new Backoff(Duration.ofMillis(500), 2.0, Duration.ofSeconds(3));
    assertThat(b.after(1)).isEqualTo(Duration.ofMillis(500));
    assertThat(b.after(2)).isEqualTo(Duration.ofMillis(1000));
    assertThat(b.after(3)).isEqualTo(Duration.ofMillis(2000));
    assertThat(b.after(4)).isEqualTo(Duration.ofMillis(3000));
  }
}
