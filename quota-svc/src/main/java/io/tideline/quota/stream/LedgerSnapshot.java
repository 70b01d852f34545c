package io.tideline.quota.stream;

import io.tideline.core.quota.Allocation;
import io.tideline.core.quota.DecayedUsage;
import io.tideline.core.quota.QuotaLedger;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The {@link QuotaLedger} as stored in the single writer's changelogged store: fleet, half-life,
 * running allocations and each queue's decayed history of finished runs (Q4).
 *
 * <p>The core ledger exposes its history only through {@link QuotaLedger#decayedUsages(Instant)}
 * (finished runs + running jobs accrued to {@code now}); the snapshot subtracts the running part
 * with the same formula. Restoring replays each queue's history as one synthetic one-second run
 * released at {@code asOf} (admit + release are the ledger's only transitions), sized so its decayed
 * contribution equals the stored value to within a micro-GPU-second.
 *
 * @param fleetGpus fleet size
 * @param halfLife Q4 decay half-life
 * @param allocations running allocations
 * @param history decayed GPU-seconds of finished runs per queue, valid at {@code asOf}
 * @param asOf the instant the history is valid at
 */
public record LedgerSnapshot(double fleetGpus, Duration halfLife, List<Allocation> allocations,
    SortedMap<String, Double> history, Instant asOf) {

  private static final String SYNTHETIC = "~history~";

  /** Captures a ledger at the logical {@code now}. */
  public static LedgerSnapshot of(QuotaLedger ledger, Instant now) {
    TreeMap<String, Double> history = new TreeMap<>(ledger.decayedUsages(now));
    for (Allocation a : ledger.allocations()) {
      if (now.isAfter(a.admittedAt())) {
        double running = DecayedUsage.zero(a.admittedAt())
            .plusRun(a.gpus(), a.admittedAt(), now, ledger.halfLife()).gpuSeconds();
        history.merge(a.queue(), -running, Double::sum);
      }
    }
    history.values().removeIf(v -> !(v > 1e-9));
    return new LedgerSnapshot(ledger.fleetGpus(), ledger.halfLife(),
        List.copyOf(ledger.allocations()), history, now);
  }

  /** The ledger this snapshot describes. */
  public QuotaLedger restore() {
    QuotaLedger l = QuotaLedger.empty(fleetGpus, halfLife);
    Instant from = asOf.minusSeconds(1);
    double perGpu = DecayedUsage.zero(from).plusRun(1.0, from, asOf, halfLife).gpuSeconds();
    for (Map.Entry<String, Double> e : history.entrySet()) {
      String id = SYNTHETIC + e.getKey();
      l = l.admit(new Allocation(id, e.getKey(), e.getValue() / perGpu, 0, from)).release(id, asOf);
    }
    for (Allocation a : allocations) {
      l = l.admit(a);
    }
    return l;
  }
}
