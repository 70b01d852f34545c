package io.tideline.core.scheduling;

import io.tideline.core.cluster.Allocation;
import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.EarlyRelease;
import io.tideline.core.cluster.GpuRef;
import io.tideline.core.cluster.NodeLedger;
import io.tideline.core.cluster.Reservation;
import io.tideline.core.cluster.Topology;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import io.tideline.core.scheduling.PlacementEffect.Outcome;
import io.tideline.core.scheduling.PlacementEffect.RequestTrigger;
import io.tideline.core.scheduling.PlacementInput.ReservationCommand;
import io.tideline.core.trace.TraceEntry;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Service reservations in the ledger (F2, F3) and forecast slots (F4).
 * <ol>
 *   <li><b>Reserve</b> (RESERVE, OVER_ISSUE): the forecaster asks for a count; placement picks
 *       which GPUs ({@link #pick}): idle unreserved GPUs on the fullest nodes first (small
 *       instances pack there and whole nodes stay free for gangs), then GPUs held only by
 *       preemptible work, which the reservation lets run until it starts. An over-issue is kept
 *       beside the reservation ({@code <id>#over-issue}) and never evicts anyone.</li>
 *   <li><b>Release</b>: a release naming the reservation drops it (and its over-issue); a
 *       release by count (F3 early release) gives that many of the service's reserved GPUs back,
 *       unused ones first ({@link EarlyRelease}).</li>
 *   <li><b>End</b>: a reservation whose validity ended holds nothing and is dropped.</li>
 *   <li><b>Start</b> ({@link #start}): from its start a reservation admits only its service. The
 *       first cycle at or after it, the jobs on its GPUs other than the service's own instances are
 *       sent to preemption (RESERVATION_START, with each holder's reserved share); preemption
 *       chooses among them with all its rules (ADR 0006). It asks only for the GPUs the rise is
 *       expected to use ({@link Reservation#expectedGpus()}, the forecast median's part, ADR
 *       0039) beyond those no one else holds; the upper tail stays with its holders (no new work
 *       lands on it) until an instance of the service waits: a pass could not place it (its wait
 *       was announced). Then the start asks again, for the expected part plus the instances
 *       waiting; after an answer only once the ledger version moved (a refusal on the same ledger
 *       would be the same refusal); never while a request is open. A stale answer re-opens it.
 *       A holder another decision is already evicting is not asked for: its GPUs
 *       come back when it stops, and asking again would only be refused as stale, every cycle,
 *       until then. While only such holders remain, the start waits (no request, no
 *       decision).</li>
 * </ol>
 */
final class ReservationRules {

  static final String OVER_ISSUE = Reservation.OVER_ISSUE_SUFFIX;
  /** Subject prefix of a reservation start: the preemptor id of its request and decision. */
  static final String SUBJECT = "reservation/";

  private final PlacementPolicy policy;

  ReservationRules(PlacementPolicy policy) {
    this.policy = policy;
  }

  /** F4: keeps the slot's class for the defragmentation gates; forgets ended slots. */
  void forecast(Cycle c, PlacementInput.Forecast f) {
    if (f.slotClass() == null) {
      return;
    }
    c.forecasts = c.forecasts.put(c.journal, DefragRules.slotKey(f.slotStart()),
        new SlotWindow(f.slotStart(), f.slotEnd(), f.slotClass()));
    for (String k : List.copyOf(c.forecasts.ids())) {
      if (!c.forecasts.get(k).end().isAfter(c.now)) {
        c.forecasts = c.forecasts.remove(c.journal, k);
      }
    }
  }

  /** Rules 1 and 2. */
  void command(Cycle c, ReservationCommand r) {
    String id = r.reservationId();
    String over = id + OVER_ISSUE;
    switch (r.action()) {
      case RELEASE -> {
        if (c.cluster.reservations().has(id) || c.cluster.reservations().has(over)) {
          drop(c, id);
          drop(c, over);
        } else {
          releaseEarly(c, r);
        }
      }
      case RESERVE, OVER_ISSUE -> {
        String rid = r.action() == ReservationCommand.Action.RESERVE ? id : over;
        drop(c, rid);
        int n = (int) Math.ceil(r.gpus() - 1e-9);
        c.setReservation(new Reservation(rid, r.serviceId(), pick(c, n), r.validFrom(),
            r.validUntil(), (int) Math.ceil(Math.min(r.expectedGpus(), r.gpus()) - 1e-9)));
      }
    }
  }

  private void drop(Cycle c, String rid) {
    c.pending = c.pending.remove(c.journal, SUBJECT + rid);
    c.dropReservation(rid);
  }

  /** Rule 2, by count. */
  private void releaseEarly(Cycle c, ReservationCommand r) {
    EarlyRelease.Result res = EarlyRelease.release(c.snap(), r.serviceId(),
        (int) Math.ceil(r.gpus() - 1e-9), c.now);
    for (Reservation x : res.changed()) {
      if (x.gpus().isEmpty()) {
        drop(c, x.id());
      } else {
        c.setReservation(x);
      }
    }
  }

  /** Rule 3. */
  void dropEnded(Cycle c) {
    for (Reservation r : List.copyOf(c.cluster.reservations().values())) {
      if (!r.activeAt(c.now)) {
        drop(c, r.id());
      }
    }
  }

  /** Rule 1: which GPUs a reservation of {@code n} holds. */
  TreeSet<GpuRef> pick(Cycle c, int n) {
    ClusterSnapshot snap = c.snap();
    TreeSet<GpuRef> out = new TreeSet<>();
    Topology topo = snap.topology();
    Integer[] order = new Integer[topo.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, Comparator.<Integer>comparingInt(i -> snap.ledger(i).idleGpus())
        .thenComparingInt(i -> i));
    for (int pass = 0; pass < 2 && out.size() < n; pass++) {
      for (int i : order) {
        if (snap.isCordoned(i)) {
          continue;
        }
        NodeLedger l = snap.ledger(i);
        for (int g = 0; g < l.gpuCount() && out.size() < n; g++) {
          if (snap.reservationsOn(i, g).stream().anyMatch(r -> r.activeAt(c.now))) {
            continue;
          }
          boolean ok = pass == 0 ? l.isIdle(g) : !l.isIdle(g) && l.holders(g).keySet().stream()
              .allMatch(j -> snap.allocations().get(j).job().preemptible());
          if (ok) {
            out.add(new GpuRef(topo.node(i).id(), g));
          }
        }
      }
    }
    return out;
  }

  /**
   * GPUs of each service's instances that wait after a pass could not place them (their wait was
   * announced): what a started reservation reclaims beyond its expected part.
   */
  private static Map<String, Double> waitingInstances(Cycle c, QueuePass pass) {
    Map<String, Double> out = new TreeMap<>();
    for (String id : c.cluster.admissions().ids()) {
      JobRequest j = c.request(id);
      if (j == null || j.workloadClass() != WorkloadClass.ONLINE_INFERENCE
          || j.serviceId() == null || !c.mark(id).announced()) {
        continue;
      }
      if (pass.waiting(c, id) != null) {
        out.merge(j.serviceId(), j.gpuDemand(), Double::sum);
      }
    }
    return out;
  }

  /** Rule 4. */
  void start(Cycle c, QueuePass pass) {
    ClusterSnapshot snap = c.snap();
    Topology topo = snap.topology();
    Map<String, Double> waiting = null;
    for (Reservation r : List.copyOf(c.cluster.reservations().values())) {
      String key = SUBJECT + r.id();
      if (r.isOverIssue() || r.startsAt().isAfter(c.now) || !r.activeAt(c.now)) {
        continue;
      }
      PendingRequest p = c.pending.get(key);
      if (p != null && p.status() == PendingRequest.Status.OPEN) {
        continue;
      }
      if (waiting == null) {
        waiting = waitingInstances(c, pass);
      }
      double waits = waiting.getOrDefault(r.serviceId(), 0.0);
      if (p != null && (waits <= 0
          || (p.requestId() != null && p.version() == c.version()))) {
        // started: looked at again only for an instance that waits; after an answer, only once
        // the ledger moved (a refusal on the same ledger would be the same refusal)
        continue;
      }
      // 1. the jobs on the reserved GPUs that are not the service's own instances, and not
      // already being evicted: their GPUs are on their way back (the reservation keeps them)
      TreeMap<String, Double> holders = new TreeMap<>();
      TreeSet<String> leaving = new TreeSet<>();
      for (GpuRef g : r.gpus()) {
        int i = topo.indexOf(g.nodeId());
        if (i < 0 || g.gpuIndex() >= snap.ledger(i).gpuCount()) {
          continue;
        }
        snap.ledger(i).holders(g.gpuIndex()).forEach((job, share) -> {
          Allocation a = snap.allocations().get(job);
          if (a == null || r.serviceId().equals(a.job().serviceId())) {
            return;
          }
          if (c.evictionOf(job) != null) {
            leaving.add(job);
          } else {
            holders.merge(job, share, Double::sum);
          }
        });
      }
      if (holders.isEmpty() && !leaving.isEmpty()) {
        // nothing to ask: look again once they have stopped (or their eviction was given up)
        continue;
      }
      // 2. how much of it the service needs: the part the rise is expected to use plus its
      // instances that wait now; the GPUs not held by anyone else (idle, the service's own, on
      // their way back) count first; only the rest is asked for, and the upper tail stays with
      // its holders until an instance of the service waits for it
      double held = holders.values().stream().mapToDouble(Double::doubleValue).sum();
      double free = r.gpus().size() - held;
      int shortfall = (int) Math.ceil(Math.min(held, r.expectedGpus() + waits - free) - 1e-9);
      if (shortfall <= 0) {
        if (p == null) { // remembered once: looked at again only for an instance that waits
          c.pending = c.pending.put(c.journal, key, new PendingRequest(null, c.version(),
              PendingRequest.Status.DONE, r.id()));
        }
        continue;
      }
      // 3. ask preemption to decide among them (W4, P1–P6 are preemption's)
      String requestId = policy.cluster() + "/" + key + "/v" + c.version();
      JobRequest shape = new JobRequest(key, r.serviceId(), r.serviceId(), r.serviceId(),
          WorkloadClass.ONLINE_INFERENCE, false, false, true, r.serviceId(), shortfall, 1.0, 1, 0,
          List.of(), r.startsAt(), null, 0, null, 0);
      c.effects.add(new PlacementEffect.RequestPreemption(requestId, key,
          WorkloadClass.ONLINE_INFERENCE, shape, RequestTrigger.RESERVATION_START, c.version(),
          c.now, r.id(), r.serviceId(), Map.copyOf(holders), -1));
      c.pending = c.pending.put(c.journal, key, new PendingRequest(requestId, c.version(),
          PendingRequest.Status.OPEN, r.id()));
      c.decide(key, Outcome.PREEMPTION_REQUESTED, List.of(), null, false, 0,
          List.of(new TraceEntry(key, "F2 reservation start", "requested", "reservation "
              + r.id() + " for " + r.serviceId() + " started at " + r.startsAt() + "; "
              + String.format(Locale.ROOT, "%.2f", held) + " of its " + r.gpus().size()
              + " GPU(s) held by " + holders.keySet() + ", " + r.expectedGpus()
              + " expected in use, " + String.format(Locale.ROOT, "%.2f", waits)
              + " of instances waiting: " + shortfall + " to reclaim; request " + requestId)));
    }
  }
}
