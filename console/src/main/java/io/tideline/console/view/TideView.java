package io.tideline.console.view;

import io.tideline.events.CapacityReservation;
import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.GpuAssignment;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.ReservationAction;
import io.tideline.events.SlotForecast;
import io.tideline.events.WorkloadClass;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ObjLongConsumer;

/**
 * The tide (O1): GPUs by class — online, reserved ahead, training/batch, idle — per time bucket
 * over the last window of event time, and each online service's forecast (p50, p90) against the
 * GPUs it actually held in that slot. A fold of inventory, submissions, placements, lifecycle
 * facts, evictions, reservations and forecasts; event time only.
 */
public final class TideView {

  /** The fleet at the end of one bucket. */
  public record Point(Instant at, double online, double reserved, double trainingBatch,
      double idle) {}

  /** One forecast slot of a service and what it actually used then (null if not seen yet). */
  public record ForecastRow(String serviceId, Instant slotStart, double p50, double p90,
      Double actual, boolean ahead) {}

  private record Running(String serviceId, boolean online, double gpus) {}

  private record Submission(WorkloadClass workloadClass, String serviceId, Instant submittedAt) {}

  private final Duration bucket;
  private final Duration window;
  private final ObjLongConsumer<String> onlineWait;
  private final Map<String, Integer> nodeGpus = new HashMap<>();
  private final Map<String, Submission> submissions = new HashMap<>();
  private final Map<String, Running> running = new HashMap<>();
  private final Map<String, Double> reserved = new HashMap<>();
  private final TreeMap<Long, Point> points = new TreeMap<>();
  private final Map<String, TreeMap<Long, Double>> actualByService = new HashMap<>();
  private final Map<String, TreeMap<Long, SlotForecast>> forecasts = new HashMap<>();
  private long latest = Long.MIN_VALUE;

  /**
   * @param bucket width of one point of the series
   * @param window how far back the series reaches from the latest event time
   * @param onlineWait told (job id, milliseconds) when an online job is first placed: the time
   *     from its submission to its placement, in event time (the scale-up wait)
   */
  public TideView(Duration bucket, Duration window, ObjLongConsumer<String> onlineWait) {
    this.bucket = bucket;
    this.window = window;
    this.onlineWait = onlineWait;
  }

  public void inventory(NodeInventory n) {
    if (n.getChange() == NodeChange.LEFT) {
      nodeGpus.remove(n.getNodeId());
    } else {
      nodeGpus.put(n.getNodeId(), n.getGpuCount());
    }
    sample(n.getObservedAt());
  }

  public void submitted(JobSubmitted j) {
    submissions.put(j.getJobId(), new Submission(j.getWorkloadClass(), j.getServiceId(),
        j.getSubmittedAt()));
  }

  public void placement(PlacementDecision d) {
    if (d.getOutcome() == PlacementOutcome.PLACED || d.getOutcome() == PlacementOutcome.MIGRATED) {
      Submission s = submissions.get(d.getJobId());
      boolean online = s != null && s.workloadClass() == WorkloadClass.ONLINE_INFERENCE;
      double gpus = 0;
      for (GpuAssignment a : d.getAssignments()) {
        gpus += a.getShare();
      }
      Running before = running.put(d.getJobId(),
          new Running(s == null ? null : s.serviceId(), online, gpus));
      if (before == null && online) {
        onlineWait.accept(d.getJobId(),
            Math.max(0, d.getDecidedAt().toEpochMilli() - s.submittedAt().toEpochMilli()));
      }
    } else if (d.getOutcome() == PlacementOutcome.RELEASED) {
      running.remove(d.getJobId());
    }
    sample(d.getDecidedAt());
  }

  public void lifecycle(JobLifecycle l) {
    switch (l.getType()) {
      case COMPLETED, FAILED, PREEMPTED -> running.remove(l.getJobId());
      default -> { }
    }
    sample(l.getOccurredAt());
  }

  public void eviction(Eviction e) {
    Running r = running.get(e.getJobId());
    if (r != null && e.getKind() == EvictionKind.SHRINK && e.getShrinkToGpus() != null) {
      running.put(e.getJobId(), new Running(r.serviceId(), r.online(), e.getShrinkToGpus()));
    } else if (r != null && e.getKind() != EvictionKind.MIGRATE) {
      running.remove(e.getJobId());
    }
    sample(e.getIssuedAt());
  }

  public void reservation(CapacityReservation r) {
    if (r.getAction() == ReservationAction.RELEASE) {
      reserved.remove(r.getServiceId());
    } else {
      reserved.put(r.getServiceId(), r.getGpus());
    }
    sample(r.getIssuedAt());
  }

  public void forecast(SlotForecast f) {
    forecasts.computeIfAbsent(f.getServiceId(), k -> new TreeMap<>())
        .put(f.getSlotStart().toEpochMilli(), f);
  }

  /** The series, oldest first, within the window of the latest event time. */
  public List<Point> series() {
    return List.copyOf(points.values());
  }

  /** The latest point, or an empty fleet. */
  public Point now() {
    return points.isEmpty() ? new Point(Instant.EPOCH, 0, 0, 0, 0) : points.lastEntry().getValue();
  }

  /**
   * Forecast against actual per service: the last {@code pastSlots} slots seen and the next
   * {@code nextSlots} slots ahead of the latest event time.
   */
  public List<ForecastRow> forecastVsActual(int pastSlots, int nextSlots) {
    List<ForecastRow> rows = new ArrayList<>();
    for (var service : new TreeMap<>(forecasts).entrySet()) {
      TreeMap<Long, Double> actual = actualByService.getOrDefault(service.getKey(), new TreeMap<>());
      List<SlotForecast> past = new ArrayList<>(service.getValue().headMap(latest, true).values());
      List<SlotForecast> ahead = new ArrayList<>(service.getValue().tailMap(latest, false).values());
      for (SlotForecast f : past.subList(Math.max(0, past.size() - pastSlots), past.size())) {
        var at = actual.floorEntry(f.getSlotEnd().toEpochMilli() - 1);
        Double seen = at == null || at.getKey() < f.getSlotStart().toEpochMilli() - bucket.toMillis()
            ? null : at.getValue();
        rows.add(new ForecastRow(service.getKey(), f.getSlotStart(), f.getP50(), f.getP90(), seen,
            false));
      }
      for (SlotForecast f : ahead.subList(0, Math.min(nextSlots, ahead.size()))) {
        rows.add(new ForecastRow(service.getKey(), f.getSlotStart(), f.getP50(), f.getP90(), null,
            true));
      }
    }
    return rows;
  }

  private void sample(Instant at) {
    long t = at.toEpochMilli();
    latest = Math.max(latest, t);
    long key = Math.floorDiv(t, bucket.toMillis()) * bucket.toMillis();
    double online = 0;
    double batch = 0;
    Map<String, Double> perService = new HashMap<>();
    for (Running r : running.values()) {
      if (r.online()) {
        online += r.gpus();
        if (r.serviceId() != null) {
          perService.merge(r.serviceId(), r.gpus(), Double::sum);
        }
      } else {
        batch += r.gpus();
      }
    }
    double total = nodeGpus.values().stream().mapToInt(Integer::intValue).sum();
    double reservedAhead = reserved.values().stream().mapToDouble(Double::doubleValue).sum();
    points.put(key, new Point(Instant.ofEpochMilli(key), online, reservedAhead, batch,
        Math.max(0, total - online - batch)));
    for (var s : perService.entrySet()) {
      actualByService.computeIfAbsent(s.getKey(), k -> new TreeMap<>()).put(key, s.getValue());
    }
    long oldest = latest - window.toMillis();
    points.headMap(oldest).clear();
    actualByService.values().forEach(m -> m.headMap(oldest).clear());
  }
}
