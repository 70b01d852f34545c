package io.tideline.simulator;

import io.tideline.platform.topics.TopicCatalogue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The services' real latency in a through-Kafka run, in wall-clock milliseconds, measured where
 * lockstep can see it: each settle's duration (from the publish of the round's records until every
 * service has consumed and committed everything, cascade included). A hop's figure is the duration
 * of the tick settle in whose round its output topic moved: the tick published, the scheduler's
 * transaction committed with the decision, and every reader of the decision topic past it. That is
 * an upper bound of the hop (it includes the lockstep check's own round trips to the broker), not
 * a broker-side measurement. Simulated waits never contain any of this (ADR 0008).
 *
 * <p>An adapter's instrument: the transport feeds it wall durations; nothing decides on them.
 */
public final class LockstepLatency {

  /** The hops reported, by the topic their output lands on, in the order of the path. */
  static final Map<String, String> HOPS = hops();

  private final Series inputs = new Series();
  private final Series ticks = new Series();
  private final Map<String, Series> byTopic = new LinkedHashMap<>();
  private long skipped;

  private static Map<String, String> hops() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(TopicCatalogue.QUOTA_VERDICTS, "submission → verdict (quota-svc)");
    m.put(TopicCatalogue.PLACEMENT_DECISIONS, "verdict → placement decision (placement-svc)");
    m.put(TopicCatalogue.PREEMPTION_REQUESTS, "shortfall → preemption request (placement-svc)");
    m.put(TopicCatalogue.PREEMPTION_DECISIONS, "request → preemption decision (preemption-svc)");
    m.put(TopicCatalogue.EVICTIONS, "preemption decision → eviction (placement-svc)");
    m.put(TopicCatalogue.CAPACITY_RESERVATIONS, "forecast → reservation (forecaster-svc)");
    return m;
  }

  /** One settle of the world's facts (submissions, starts, finishes, telemetry) before a tick. */
  public void inputSettled(double millis) {
    inputs.add(millis);
  }

  /** A round whose world had nothing to publish before its tick: no settle was needed. */
  public void inputSkipped() {
    skipped++;
  }

  /** One settle of a tick, and the catalogued topics that moved during it. */
  public void tickSettled(double millis, Set<String> moved) {
    ticks.add(millis);
    for (String topic : HOPS.keySet()) {
      if (moved.contains(topic)) {
        byTopic.computeIfAbsent(topic, t -> new Series()).add(millis);
      }
    }
  }

  /** Rounds measured (one tick settle each). */
  public int rounds() {
    return ticks.size();
  }

  /** The summary the demo prints. */
  public String summary() {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "lockstep: %d rounds, %.0f ms per round on average "
        + "(%d rounds had no facts to settle before their tick)%n", rounds(),
        (inputs.sum() + ticks.sum()) / Math.max(1, rounds()), skipped));
    b.append("per-hop wall latency through the real services (ms; the settle of the round in "
        + "which the hop's output appeared, an upper bound):\n");
    b.append(String.format(Locale.ROOT, "  %-52s %7s %8s %8s%n", "hop", "rounds", "p50", "p99"));
    row(b, "world's facts → every scheduler's inbox (input settle)", inputs);
    row(b, "tick → every scheduler decided (tick settle)", ticks);
    HOPS.forEach((topic, name) -> {
      Series s = byTopic.get(topic);
      if (s != null) {
        row(b, name, s);
      }
    });
    return b.toString();
  }

  private static void row(StringBuilder b, String name, Series s) {
    b.append(String.format(Locale.ROOT, "  %-52s %7d %8.0f %8.0f%n", name, s.size(),
        s.quantile(0.50), s.quantile(0.99)));
  }

  /** The p-quantile of one hop (for tests), or NaN when nothing was measured. */
  double quantile(String topic, double p) {
    Series s = byTopic.get(topic);
    return s == null ? Double.NaN : s.quantile(p);
  }

  /** Durations in the order measured. */
  private static final class Series {
    private final List<Double> values = new ArrayList<>();

    void add(double v) {
      values.add(v);
    }

    int size() {
      return values.size();
    }

    double sum() {
      return values.stream().mapToDouble(Double::doubleValue).sum();
    }

    /** Nearest-rank quantile. */
    double quantile(double p) {
      if (values.isEmpty()) {
        return Double.NaN;
      }
      double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
      Arrays.sort(sorted);
      int rank = (int) Math.ceil(p * sorted.length);
      return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
  }
}
