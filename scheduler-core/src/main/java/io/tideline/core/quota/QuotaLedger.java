package io.tideline.core.quota;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Quota usage state: the fleet size, every running job's {@link Allocation}, each queue's
 * guaranteed/borrowed usage and its decayed usage history (Q4). Immutable: each transition (admit,
 * release, preempt) returns a new ledger, so a decision can be tried on a copy and the service keeps
 * the previous state until the result is written. Maps are sorted, never hash-ordered.
 */
public final class QuotaLedger {

  private final double fleetGpus;
  private final Duration halfLife;
  private final TreeMap<String, Allocation> allocations;
  private final TreeMap<String, QueueUsage> usage;
  private final TreeMap<String, DecayedUsage> history;

  private QuotaLedger(double fleetGpus, Duration halfLife, TreeMap<String, Allocation> allocations,
      TreeMap<String, QueueUsage> usage, TreeMap<String, DecayedUsage> history) {
    this.fleetGpus = fleetGpus;
    this.halfLife = halfLife;
    this.allocations = allocations;
    this.usage = usage;
    this.history = history;
  }

  /** An empty ledger for a fleet; {@code halfLife} is the Q4 decay (config default 7 days). */
  public static QuotaLedger empty(double fleetGpus, Duration halfLife) {
    return new QuotaLedger(fleetGpus, halfLife, new TreeMap<>(), new TreeMap<>(), new TreeMap<>());
  }

  /** The same usage on a fleet of a different size (nodes added or drained). */
  public QuotaLedger withFleet(double gpus) {
    return new QuotaLedger(gpus, halfLife, allocations, usage, history);
  }

  /** The job starts using quota. */
  public QuotaLedger admit(Allocation a) {
    if (allocations.containsKey(a.jobId())) {
      throw new IllegalArgumentException("job " + a.jobId() + " is already admitted");
    }
    TreeMap<String, Allocation> allocs = new TreeMap<>(allocations);
    allocs.put(a.jobId(), a);
    TreeMap<String, QueueUsage> use = new TreeMap<>(usage);
    use.put(a.queue(), use.getOrDefault(a.queue(), QueueUsage.NONE).plus(a));
    return new QuotaLedger(fleetGpus, halfLife, allocs, use, history);
  }

  /** The job completed: its GPUs return and its run is added to the queue's decayed history. */
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
    TreeMap<String, Allocation> allocs = new TreeMap<>(allocations);
    allocs.remove(jobId);
    TreeMap<String, QueueUsage> use = new TreeMap<>(usage);
    QueueUsage left = use.get(a.queue()).minus(a);
    if (left.equals(QueueUsage.NONE)) {
      use.remove(a.queue());
    } else {
      use.put(a.queue(), left);
    }
    TreeMap<String, DecayedUsage> hist = new TreeMap<>(history);
    DecayedUsage h = hist.getOrDefault(a.queue(), DecayedUsage.zero(a.admittedAt()));
    hist.put(a.queue(), h.plusRun(a.gpus(), a.admittedAt(), now, halfLife));
    return new QuotaLedger(fleetGpus, halfLife, allocs, use, hist);
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

  /** Every queue's decayed usage at {@code now} in GPU-seconds (Q4), in one sweep, by path. */
  public SortedMap<String, Double> decayedUsages(Instant now) {
    TreeMap<String, Double> out = new TreeMap<>();
    history.forEach((q, h) -> out.put(q, h.at(now, halfLife).gpuSeconds()));
    for (Allocation a : allocations.values()) {
      if (now.isAfter(a.admittedAt())) {
        out.merge(a.queue(),
            DecayedUsage.runContribution(a.gpus(), a.admittedAt(), now, halfLife), Double::sum);
      }
    }
    return Collections.unmodifiableSortedMap(out);
  }

  /**
   * A queue's decayed usage at {@code now} in GPU-seconds (Q4): completed runs from the history plus
   * its running jobs accrued up to {@code now}.
   */
  public double decayedUsage(String queue, Instant now) {
    double total = history.getOrDefault(queue, DecayedUsage.zero(now)).at(now, halfLife)
        .gpuSeconds();
    for (Allocation a : allocations.values()) {
      if (a.queue().equals(queue) && now.isAfter(a.admittedAt())) {
        total += DecayedUsage.runContribution(a.gpus(), a.admittedAt(), now, halfLife);
      }
    }
    return total;
  }
}
