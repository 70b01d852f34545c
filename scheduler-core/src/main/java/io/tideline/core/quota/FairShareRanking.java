package io.tideline.core.quota;

import io.tideline.core.trace.TraceEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Orders the queues waiting for capacity (requirements Q3, Q4): queues below their guarantee first
 * (the pool favours them), then the lowest decayed usage per weight (long-waiting, light users gain
 * chances, heavy users cannot hog), then the oldest waiting job, then the queue path as a total
 * tie-break. Decay uses the ledger's half-life and the explicit {@code now}.
 */
public final class FairShareRanking {

  /** The serving order: below guarantee, fair-share score, oldest waiting, path. */
  public static final Comparator<QueueStanding> ORDER = Comparator
      .comparing((QueueStanding s) -> !s.belowGuarantee())
      .thenComparingDouble(QueueStanding::fairShareScore)
      .thenComparing(QueueStanding::oldestWaiting)
      .thenComparing(QueueStanding::queue);

  /** The result: standings in serving order and a trace line per queue. */
  public record Ranking(List<QueueStanding> order, List<TraceEntry> trace) {
    public Ranking {
      order = List.copyOf(order);
      trace = List.copyOf(trace);
    }
  }

  /**
   * Ranks the queues that have waiting jobs.
   *
   * @param oldestWaiting submission time of each waiting queue's oldest job, by queue path
   */
  public Ranking rank(QuotaDefinition def, QuotaLedger ledger, Map<String, Instant> oldestWaiting,
      Instant now) {
    List<QueueStanding> standings = new ArrayList<>();
    Map<String, Double> decayed = ledger.decayedUsages(now);
    for (Map.Entry<String, Instant> e : new TreeMap<>(oldestWaiting).entrySet()) {
      QuotaNode q = def.node(e.getKey()).orElseThrow(
          () -> new IllegalArgumentException("unknown queue " + e.getKey()));
      double used = ledger.usage(q.path()).guaranteedUsed();
      boolean below = Gpus.positive(q.guaranteedGpus() - used);
      double hours = decayed.getOrDefault(q.path(), 0.0) / 3600.0;
      standings.add(new QueueStanding(q.path(), below, q.guaranteedGpus(), used, hours,
          q.weight(), e.getValue()));
    }
    standings.sort(ORDER);
    List<TraceEntry> trace = new ArrayList<>();
    for (int i = 0; i < standings.size(); i++) {
      QueueStanding s = standings.get(i);
      trace.add(new TraceEntry(s.queue(), "Q3/Q4 fair-share order", "rank " + (i + 1),
          (s.belowGuarantee() ? "below" : "at") + " guarantee (" + Gpus.fmt(s.guaranteedUsed())
              + "/" + Gpus.fmt(s.guaranteedGpus()) + "), decayed usage "
              + Gpus.fmt(s.decayedGpuHours()) + " GPU-h / weight " + Gpus.fmt(s.weight())
              + ", waiting since " + s.oldestWaiting()));
    }
    return new Ranking(standings, trace);
  }
}
