package io.tideline.console.view;

import io.tideline.events.JobSubmitted;
import io.tideline.events.Lane;
import io.tideline.events.QueuePosition;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.Verdict;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The queues (Q6): per lane, every waiting job with its position, estimated start and the reason
 * it waits — quota (its verdict queued it, with the verdict's reason and unblock hint) or
 * placement's own basis for the estimate (fragmentation, a reservation, a gang that does not fit
 * yet). A fold of the compacted {@code placement.queue} (a tombstone: the job left the queue),
 * quota verdicts and submissions.
 */
public final class QueueView {

  /** One waiting job. */
  public record Row(Lane lane, int position, String jobId, String tenant, int gpus,
      Instant estimatedStart, String reason, Instant updatedAt) {}

  private record Known(String tenant, int gpus) {}

  private record Waiting(QueuePosition position) {}

  private final Map<String, Waiting> waiting = new HashMap<>();
  private final Map<String, QuotaVerdict> verdicts = new HashMap<>();
  private final Map<String, Known> jobs = new HashMap<>();

  public void submitted(JobSubmitted j) {
    jobs.put(j.getJobId(), new Known(j.getTenant(), j.getResources().getGpuCount()));
  }

  public void verdict(QuotaVerdict v) {
    verdicts.put(v.getJobId(), v);
  }

  /** A queue position, or {@code null} value (tombstone) for a job that left the queue. */
  public void position(String jobId, QueuePosition p) {
    if (p == null) {
      waiting.remove(jobId);
    } else {
      waiting.put(p.getJobId(), new Waiting(p));
    }
  }

  /** How many jobs wait in each lane. */
  public Map<Lane, Integer> lengths() {
    Map<Lane, Integer> out = new EnumMap<>(Lane.class);
    for (Lane l : Lane.values()) {
      out.put(l, 0);
    }
    waiting.values().forEach(w -> out.merge(w.position().getLane(), 1, Integer::sum));
    return out;
  }

  /** One page of a lane, by position. */
  public Page<Row> lane(Lane lane, int page, int size) {
    List<Row> rows = new ArrayList<>();
    for (Waiting w : waiting.values()) {
      if (w.position().getLane() == lane) {
        rows.add(row(w.position()));
      }
    }
    rows.sort(Comparator.comparingInt(Row::position).thenComparing(Row::jobId));
    return Page.of(rows, page, size);
  }

  private Row row(QueuePosition p) {
    Known k = jobs.get(p.getJobId());
    return new Row(p.getLane(), p.getPosition(), p.getJobId(), k == null ? "?" : k.tenant(),
        k == null ? 0 : k.gpus(), p.getEstimatedStart(), reason(p), p.getUpdatedAt());
  }

  /** Quota's reason when its verdict queued the job, else placement's basis for the estimate. */
  static String reason(QueuePosition p, QuotaVerdict v) {
    if (v != null && (v.getVerdict() == Verdict.QUEUED || v.getVerdict() == Verdict.REJECTED)) {
      return "quota: " + v.getReason()
          + (v.getUnblockHint() == null ? "" : " (unblocks when: " + v.getUnblockHint() + ")");
    }
    return p.getEstimateBasis();
  }

  private String reason(QueuePosition p) {
    return reason(p, verdicts.get(p.getJobId()));
  }
}
