package io.tideline.core.quota;

import io.tideline.core.trace.TraceEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Serves the waiting jobs when capacity may have freed (a completion, a preemption, a new
 * submission): queues in {@link FairShareRanking} order, jobs inside a queue first-come first-served,
 * a queue's later job may start when its head cannot (backfill). The ranking is recomputed after every
 * admission, so the pool keeps favouring queues below their guarantee (Q3) and light users (Q4).
 * Backfill can delay a large job behind smaller ones; reservations are placement's concern.
 *
 * <p>Borrowers reclaimed for a guaranteed job (named in its verdict) are no longer running: the caller
 * puts them back in the waiting set with {@code lastPreemptedAt = now} and runs another pass.
 */
public final class AdmissionPass {

  private final QuotaAdmission admission;
  private final FairShareRanking ranking = new FairShareRanking();

  public AdmissionPass(QuotaConfig config) {
    this.admission = new QuotaAdmission(config);
  }

  /**
   * The pass's outcome.
   *
   * @param ledger usage after every admission (and reclaim) of the pass
   * @param verdicts one per waiting job: admissions in the order they happened, then the rest
   * @param trace the ranking of each round
   */
  public record Result(QuotaLedger ledger, List<AdmissionVerdict> verdicts, List<TraceEntry> trace) {
    public Result {
      verdicts = List.copyOf(verdicts);
      trace = List.copyOf(trace);
    }

    /** The verdicts that let a job start. */
    public List<AdmissionVerdict> admitted() {
      return verdicts.stream().filter(AdmissionVerdict::admitted).toList();
    }
  }

  public Result run(List<WaitingJob> waiting, QuotaDefinition def, QuotaLedger ledger,
      Instant now) {
    List<AdmissionVerdict> verdicts = new ArrayList<>();
    List<TraceEntry> trace = new ArrayList<>();
    // 1. Group by queue, oldest first; a job without a queue is decided (rejected) at once.
    TreeMap<String, List<WaitingJob>> byQueue = new TreeMap<>();
    for (WaitingJob w : waiting) {
      Optional<QuotaNode> q = def.queue(w.job().tenant(), w.job().team(),
          w.job().workloadClass().lane());
      if (q.isEmpty()) {
        verdicts.add(admission.decide(w.job(), w.lastPreemptedAt(), def, ledger, now));
      } else {
        byQueue.computeIfAbsent(q.get().path(), k -> new ArrayList<>()).add(w);
      }
    }
    Comparator<WaitingJob> fifo = Comparator
        .comparing((WaitingJob w) -> w.job().submittedAt())
        .thenComparing(w -> w.job().jobId());
    byQueue.values().forEach(l -> l.sort(fifo));
    Map<String, AdmissionVerdict> last = new LinkedHashMap<>();
    TreeSet<String> exhausted = new TreeSet<>();
    QuotaLedger current = ledger;
    // 2. Serve the top-ranked queue's first admissible job; re-rank after each admission.
    while (true) {
      Map<String, Instant> oldest = new TreeMap<>();
      byQueue.forEach((q, jobs) -> {
        if (!exhausted.contains(q)) {
          oldest.put(q, jobs.get(0).job().submittedAt());
        }
      });
      if (oldest.isEmpty()) {
        break;
      }
      FairShareRanking.Ranking rank = ranking.rank(def, current, oldest, now);
      trace.addAll(rank.trace());
      for (QueueStanding s : rank.order()) {
        List<WaitingJob> jobs = byQueue.get(s.queue());
        AdmissionVerdict admitted = null;
        for (WaitingJob w : jobs) {
          AdmissionVerdict v = admission.decide(w.job(), w.lastPreemptedAt(), def, current, now);
          if (v.admitted()) {
            admitted = v;
            jobs.remove(w);
            break;
          }
          last.put(w.job().jobId(), v);
        }
        if (admitted == null) {
          exhausted.add(s.queue()); // nothing of this queue can start now
          continue;
        }
        current = current.apply(admitted);
        verdicts.add(admitted);
        last.remove(admitted.jobId());
        if (jobs.isEmpty()) {
          byQueue.remove(s.queue());
        }
        if (!admitted.reclaimJobIds().isEmpty()) {
          exhausted.clear(); // a reclaim frees floors and caps: every queue gets another look
        }
        break;
      }
    }
    // 3. Whoever is left keeps the last verdict it was given.
    verdicts.addAll(last.values());
    return new Result(current, verdicts, trace);
  }
}
