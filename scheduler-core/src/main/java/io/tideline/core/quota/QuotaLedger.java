package io.tideline.core.quota;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.pcollections.TreePMap;

/**
 * Quota usage state: the fleet size, every running job's {@link Allocation}, each queue's
 * guaranteed/borrowed usage and its decayed usage history (Q4). Immutable and persistent: each
 * transition (admit, release, preempt) returns a new ledger sharing structure with this one
 * (O(log n)), so a decision can be tried on a copy and the service keeps the previous state until
 * the result is written. Maps are sorted, never hash-ordered.
 *
 * <p>What the ledger is made of — fleet, half-life, allocations and the per-queue
 * {@link DecayedUsage} history — is exactly what {@link #restore} takes back: the usage sums are
 * derived from the allocations (snapped to the micro-GPU grid, so the order they were added in
 * cannot show), and decayed usage is integer GPU-milliseconds, so a restored ledger answers every
 * query bit for bit as the original does.
 */
public final class QuotaLedger {

  private final double fleetGpus;
  private final Duration halfLife;
  private final TreePMap<String, Allocation> allocations;
  private final TreePMap<String, QueueUsage> usage;
  private final TreePMap<String, DecayedUsage> history;
  /**
   * Memo of {@link #decayedGpuMillis(Instant)} at the last instant asked (a pure function of this
   * immutable ledger and the instant, so the memo changes no answer). An admission pass asks it at
   * one {@code now} for every queue ranking and every verdict; without the memo each ask summed
   * every running allocation: quadratic in the jobs a tick admits (issue #16, finding 10). Not part
   * of the value ({@link #equals}).
   */
  private Decayed decayed;

  /** Every queue's decayed usage at {@code at}, as {@link #decayedGpuMillis(Instant)} returns. */
  private record Decayed(Instant at, SortedMap<String, Long> gpuMillis) {}

  private QuotaLedger(double fleetGpus, Duration halfLife, TreePMap<String, Allocation> allocations,
      TreePMap<String, QueueUsage> usage, TreePMap<String, DecayedUsage> history) {
    this(fleetGpus, halfLife, allocations, usage, history, null);
  }

  private QuotaLedger(double fleetGpus, Duration halfLife, TreePMap<String, Allocation> allocations,
      TreePMap<String, QueueUsage> usage, TreePMap<String, DecayedUsage> history,
      Decayed decayed) {
    this.fleetGpus = fleetGpus;
    this.halfLife = halfLife;
    this.allocations = allocations;
    this.usage = usage;
    this.history = history;
    this.decayed = decayed;
  }

  /** An empty ledger for a fleet; {@code halfLife} is the Q4 decay (config default 7 days). */
  public static QuotaLedger empty(double fleetGpus, Duration halfLife) {
    return new QuotaLedger(fleetGpus, halfLife, TreePMap.empty(), TreePMap.empty(),
        TreePMap.empty());
  }

  /**
   * A ledger from what it is made of (a restore): the running allocations and each queue's history
   * of finished runs.
   */
  public static QuotaLedger restore(double fleetGpus, Duration halfLife,
      Collection<Allocation> allocations, Map<String, DecayedUsage> history) {
    QuotaLedger l = new QuotaLedger(fleetGpus, halfLife, TreePMap.empty(), TreePMap.empty(),
        TreePMap.from(history));
    for (Allocation a : allocations) {
      l = l.admit(a);
    }
    return l;
  }

  /** The same usage on a fleet of a different size (nodes added or drained). */
  public QuotaLedger withFleet(double gpus) {
    return new QuotaLedger(gpus, halfLife, allocations, usage, history, decayed);
  }

  /** The job starts using quota. */
  public QuotaLedger admit(Allocation a) {
    if (allocations.containsKey(a.jobId())) {
      throw new IllegalArgumentException("job " + a.jobId() + " is already admitted");
    }
    // an allocation admitted at or after the memo's instant adds nothing to the usage decayed to
    // that instant (a run accrues only after it starts): the memo stays true
    Decayed memo = decayed;
    Decayed kept = memo != null && !memo.at().isAfter(a.admittedAt()) ? memo : null;
    return new QuotaLedger(fleetGpus, halfLife, allocations.plus(a.jobId(), a),
        usage.plus(a.queue(), usage.getOrDefault(a.queue(), QueueUsage.NONE).plus(a)), history,
        kept);
  }

  /**
   * The job completed: its GPUs return and its run up to {@code now} is added to the queue's
   * decayed history.
   */
  public QuotaLedger release(String jobId, Instant now) {
    return remove(jobId, now);
  }

  /**
   * The job was preempted: its GPUs return and its run is accounted like a completion. The caller
   * keeps the preemption instant: it is the {@code lastPreemptedAt} of the job's next admission (P3).
   */
  public QuotaLedger preempt(String jobId, Instant now) {
    return remove(jobId, now);
  }

  /**
   * The job goes on with {@code gpus} GPUs from {@code at} (a shrink applied): its run so far is
   * accounted at its old size, and it holds the smaller allocation from {@code at}, the borrowed
   * part shrinking first.
   */
  public QuotaLedger resize(String jobId, double gpus, Instant at) {
    Allocation a = allocations.get(jobId);
    if (a == null || !(gpus < a.gpus() - Gpus.EPS) || !(gpus > 0)) {
      return this;
    }
    double cut = a.gpus() - gpus;
    double borrowed = Math.max(0, a.borrowedGpus() - cut);
    double guaranteed = gpus - borrowed;
    return remove(jobId, at).admit(new Allocation(jobId, a.queue(), guaranteed, borrowed, at));
  }

  /** Applies an admitting verdict: preempts the reclaimed borrowers, then admits the job. */
  public QuotaLedger apply(AdmissionVerdict v) {
    if (!v.admitted()) {
      return this;
    }
    QuotaLedger next = this;
    for (String victim : v.reclaimJobIds()) {
      next = next.preempt(victim, v.decidedAt());
    }
    return next.admit(v.allocation());
  }

  private QuotaLedger remove(String jobId, Instant now) {
    Allocation a = allocations.get(jobId);
    if (a == null) {
      return this; // idempotent: a replayed completion changes nothing
    }
    QueueUsage left = usage.get(a.queue()).minus(a);
    TreePMap<String, QueueUsage> use = left.equals(QueueUsage.NONE) ? usage.minus(a.queue())
        : usage.plus(a.queue(), left);
    DecayedUsage h = history.getOrDefault(a.queue(), DecayedUsage.zero(a.admittedAt()));
    Instant end = now.isBefore(a.admittedAt()) ? a.admittedAt() : now;
    return new QuotaLedger(fleetGpus, halfLife, allocations.minus(jobId), use,
        history.plus(a.queue(), h.plusRun(a.gpus(), a.admittedAt(), end, halfLife)));
  }

  public double fleetGpus() {
    return fleetGpus;
  }

  public Duration halfLife() {
    return halfLife;
  }

  public Optional<Allocation> allocation(String jobId) {
    return Optional.ofNullable(allocations.get(jobId));
  }

  /** Running allocations, by job id. */
  public Collection<Allocation> allocations() {
    return Collections.unmodifiableCollection(allocations.values());
  }

  /** Each queue's decayed history of finished runs, by path (what {@link #restore} takes). */
  public SortedMap<String, DecayedUsage> history() {
    return Collections.unmodifiableSortedMap(history);
  }

  public QueueUsage usage(String queue) {
    return usage.getOrDefault(queue, QueueUsage.NONE);
  }

  /** Usage of every queue that has any, by path. */
  public SortedMap<String, QueueUsage> usages() {
    return Collections.unmodifiableSortedMap(usage);
  }

  public double totalUsed() {
    return Gpus.snap(usage.values().stream().mapToDouble(QueueUsage::total).sum());
  }

  public double totalBorrowed() {
    return Gpus.snap(usage.values().stream().mapToDouble(QueueUsage::borrowedUsed).sum());
  }

  /** GPUs borrowed by the queues at or under {@code path} (Q3 caps apply per subtree). */
  public double borrowedUnder(String path) {
    String prefix = path + "/";
    return Gpus.snap(usage.subMap(path, true, path + "0", false).entrySet().stream()
        .filter(e -> e.getKey().equals(path) || e.getKey().startsWith(prefix))
        .mapToDouble(e -> e.getValue().borrowedUsed()).sum());
  }

  /**
   * Every queue's decayed usage at {@code now} in integer GPU-milliseconds (Q4), in one sweep, by
   * path: finished runs from the history plus running jobs accrued up to {@code now}.
   */
  public SortedMap<String, Long> decayedGpuMillis(Instant now) {
    Decayed memo = decayed;
    if (memo != null && memo.at().equals(now)) {
      return memo.gpuMillis();
    }
    SortedMap<String, Long> swept = sweep(now);
    decayed = new Decayed(now, swept);
    return swept;
  }

  private SortedMap<String, Long> sweep(Instant now) {
    TreeMap<String, Long> out = new TreeMap<>();
    history.forEach((q, h) -> out.put(q, h.at(now, halfLife).gpuMillis()));
    for (Allocation a : allocations.values()) {
      if (now.isAfter(a.admittedAt())) {
        out.merge(a.queue(), DecayedUsage.runContribution(a.gpus(), a.admittedAt(), now, halfLife),
            Long::sum);
      }
    }
    return Collections.unmodifiableSortedMap(out);
  }

  /** Every queue's decayed usage at {@code now} in GPU-seconds (Q4), by path. */
  public SortedMap<String, Double> decayedUsages(Instant now) {
    TreeMap<String, Double> out = new TreeMap<>();
    decayedGpuMillis(now).forEach((q, ms) -> out.put(q, ms / 1000.0));
    return Collections.unmodifiableSortedMap(out);
  }

  /** A queue's decayed usage at {@code now} in integer GPU-milliseconds (Q4). */
  public long decayedGpuMillis(String queue, Instant now) {
    Decayed memo = decayed;
    if (memo != null && memo.at().equals(now)) {
      return memo.gpuMillis().getOrDefault(queue, 0L);
    }
    DecayedUsage h = history.get(queue);
    long total = h == null ? 0 : h.at(now, halfLife).gpuMillis();
    for (Allocation a : allocations.values()) {
      if (a.queue().equals(queue) && now.isAfter(a.admittedAt())) {
        total += DecayedUsage.runContribution(a.gpus(), a.admittedAt(), now, halfLife);
      }
    }
    return total;
  }

  /**
   * A queue's decayed usage at {@code now} in GPU-seconds (Q4): completed runs from the history plus
   * its running jobs accrued up to {@code now}.
   */
  public double decayedUsage(String queue, Instant now) {
    return decayedGpuMillis(queue, now) / 1000.0;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof QuotaLedger l && Double.compare(fleetGpus, l.fleetGpus) == 0
        && halfLife.equals(l.halfLife) && allocations.equals(l.allocations)
        && usage.equals(l.usage) && history.equals(l.history);
  }

  @Override
  public int hashCode() {
    return allocations.hashCode() * 31 + history.hashCode();
  }

  @Override
  public String toString() {
    return "QuotaLedger[fleet " + fleetGpus + ", " + allocations.size() + " allocations, usage "
        + usage + ", history " + history + "]";
  }
}
