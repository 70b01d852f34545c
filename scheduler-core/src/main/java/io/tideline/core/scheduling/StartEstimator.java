package io.tideline.core.scheduling;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.state.Binding;
import io.tideline.core.placement.QueuedJob;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * When a waiting job may start (P7's ETA, P5's wait avoided), from what placement knows: the idle
 * GPUs now and the declared durations of the running jobs. A job needs its own GPUs plus those of
 * the jobs ahead in its lane; if that many are idle now it may start now (it waits for shape,
 * topology or reservations); otherwise it starts when enough running jobs end, in order of their
 * declared ends; if their declared durations never free enough, the estimate is unknown.
 */
final class StartEstimator {

  /** An estimate: when ({@code null}: unknown) and how it was made. */
  record Estimate(Instant at, String basis) {}

  private final PlacementPolicy policy;

  StartEstimator(PlacementPolicy policy) {
    this.policy = policy;
  }

  /** The ends of the running jobs, computed once per use. */
  Ends ends(Cycle c) {
    return new Ends(c);
  }

  /**
   * P5: the wait placement expects for {@code q} without a preemption — the estimate capped at
   * {@link PlacementPolicy#maxExpectedWait()}, {@link PlacementPolicy#defaultExpectedWait()} when
   * unknown.
   */
  long expectedWaitSeconds(Cycle c, QueuedJob q, QueuePass pass) {
    double ahead = 0;
    for (QueuedJob o : pass.lanes(c).get(q.job().workloadClass().lane())) {
      if (o.job().jobId().equals(q.job().jobId())) {
        break;
      }
      ahead += o.job().gpuDemand();
    }
    Estimate e = ends(c).estimate(q.job().gpuDemand(), ahead);
    long cap = policy.maxExpectedWait().toSeconds();
    if (e.at() == null) {
      return Math.min(cap, policy.defaultExpectedWait().toSeconds());
    }
    return Math.min(cap, Math.max(0, Duration.between(c.now, e.at()).toSeconds()));
  }

  /** Idle GPUs now and the running jobs' declared ends, sorted. */
  static final class Ends {
    private final Instant now;
    private final double idle;
    private final Instant[] ends;
    private final double[] freed;

    Ends(Cycle c) {
      this.now = c.now;
      ClusterSnapshot snap = c.snap();
      double free = 0;
      record End(Instant at, String id, double gpus) {}
      List<End> e = new ArrayList<>();
      if (snap != null) {
        free = snap.idleGpus();
        for (Map.Entry<String, Binding> b : c.cluster.bindings().asMap().entrySet()) {
          long dur = b.getValue().job().expectedDurationSeconds();
          if (dur > 0) {
            e.add(new End(b.getValue().boundTime().plusSeconds(dur), b.getKey(),
                b.getValue().gpuShare()));
          }
        }
      }
      e.sort(Comparator.comparing(End::at).thenComparing(End::id));
      idle = free;
      ends = new Instant[e.size()];
      freed = new double[e.size()];
      double sum = 0;
      for (int i = 0; i < ends.length; i++) {
        ends[i] = e.get(i).at();
        sum += e.get(i).gpus();
        freed[i] = sum;
      }
    }

    Estimate estimate(double demand, double ahead) {
      double need = demand + ahead;
      String numbers = String.format(Locale.ROOT, "needs %.2f GPU(s) (%.2f own + %.2f for the "
          + "jobs ahead in its lane), %.0f idle now", need, demand, ahead, idle);
      if (need <= idle + 1e-9) {
        return new Estimate(now, "enough idle GPUs now; " + numbers
            + "; waiting for shape, topology or reservations");
      }
      int lo = 0;
      int hi = ends.length;
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (idle + freed[mid] + 1e-9 >= need) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      if (lo == ends.length) {
        return new Estimate(null, "unknown: the running jobs' declared durations free only "
            + String.format(Locale.ROOT, "%.2f", ends.length == 0 ? 0 : freed[ends.length - 1])
            + " GPU(s); " + numbers);
      }
      Instant at = ends[lo].isBefore(now) ? now : ends[lo];
      return new Estimate(at, "declared durations of the " + (lo + 1) + " running job(s) "
          + "ending first free " + String.format(Locale.ROOT, "%.2f", freed[lo]) + " GPU(s); "
          + numbers);
    }
  }
}
