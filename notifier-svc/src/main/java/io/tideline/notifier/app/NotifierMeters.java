package io.tideline.notifier.app;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The notifier's meters, all here so their names are documented in one place:
 *
 * <ul>
 *   <li>{@code tideline.notifier.notices{kind}} — notices composed and published on {@code notices}
 *   <li>{@code tideline.notifier.deliveries{channel, outcome}} — notices per channel that were
 *       {@code delivered}, {@code dead_lettered}, or {@code duplicate} (skipped: already delivered)
 *   <li>{@code tideline.notifier.messages{channel, digest}} — messages sent (a digest is one)
 *   <li>{@code tideline.notifier.send.failures{channel, retryable}} — failed attempts
 *   <li>{@code tideline.notifier.inputs{topic, outcome}} — input records {@code accepted},
 *       {@code dead_lettered} (bad input) or {@code skipped} (e.g. owner unknown)
 *   <li>{@code tideline.notifier.joins{outcome}} — the eviction-decision join: applied evictions
 *       notified {@code explained} (with their decision) or {@code unexplained} (no decision in
 *       time), not notified for {@code no_owner}, evictions read again and {@code
 *       already_notified}, and decisions {@code decision_expired} (never applied: nobody told)
 * </ul>
 */
@ApplicationScoped
public class NotifierMeters {

  private final MeterRegistry registry;

  public NotifierMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  public void composed(String kind) {
    counter("tideline.notifier.notices", "kind", kind).increment();
  }

  public void delivery(String channel, String outcome, int n) {
    counter("tideline.notifier.deliveries", "channel", channel, "outcome", outcome).increment(n);
  }

  public void message(String channel, boolean digest) {
    counter("tideline.notifier.messages", "channel", channel, "digest", String.valueOf(digest))
        .increment();
  }

  public void sendFailure(String channel, boolean retryable) {
    counter("tideline.notifier.send.failures", "channel", channel, "retryable",
        String.valueOf(retryable)).increment();
  }

  public void join(String outcome) {
    counter("tideline.notifier.joins", "outcome", outcome).increment();
  }

  public void input(String topic, String outcome) {
    counter("tideline.notifier.inputs", "topic", topic, "outcome", outcome).increment();
  }

  private Counter counter(String name, String... tags) {
    return Counter.builder(name).tags(tags).register(registry);
  }
}
