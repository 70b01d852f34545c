package io.tideline.placement.ledger;

import io.tideline.core.cluster.Allocation;
import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.EarlyRelease;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.GpuRef;
import io.tideline.core.cluster.Node;
import io.tideline.core.cluster.NodeLedger;
import io.tideline.core.cluster.Reservation;
import io.tideline.core.cluster.SwitchPath;
import io.tideline.core.cluster.Topology;
import io.tideline.core.cluster.TopologyLevel;
import io.tideline.core.fragmentation.ActiveDefragPlanner;
import io.tideline.core.fragmentation.ClusterFragmentation;
import io.tideline.core.fragmentation.DefragPlan;
import io.tideline.core.fragmentation.DemandHistogram;
import io.tideline.core.fragmentation.FragmentationIndex;
import io.tideline.core.fragmentation.FragmentationReporting;
import io.tideline.core.fragmentation.NodeFragmentation;
import io.tideline.core.fragmentation.Migration;
import io.tideline.core.fragmentation.PassiveDefragPlanner;
import io.tideline.core.fragmentation.PastMigration;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass.Lane;
import io.tideline.core.placement.CompensationBoost;
import io.tideline.core.placement.FairShare;
import io.tideline.core.placement.PlacementDecision;
import io.tideline.core.placement.Placer;
import io.tideline.core.placement.QueueOrder;
import io.tideline.core.placement.QueuedJob;
import io.tideline.core.placement.QuotaRank;
import io.tideline.core.trace.TraceEntry;
import io.tideline.core.placement.UnplaceableReason;
import io.tideline.core.slots.SlotClass;
import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockTick;
import io.tideline.events.DemandShape;
import io.tideline.events.DomainLevel;
import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.FragmentationReport;
import io.tideline.events.FragmentationTrigger;
import io.tideline.events.HardwarePreference;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeFragmentationFigure;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.PreemptionRequest;
import io.tideline.events.PreemptionTrigger;
import io.tideline.events.QueuePosition;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.ResourceRequest;
import io.tideline.events.RuleTraceEntry;
import io.tideline.events.SlotForecast;
import io.tideline.events.Verdict;
import io.tideline.events.Victim;
import io.tideline.platform.intake.JobRequests;
import io.tideline.platform.topics.TopicCatalogue;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The allocation ledger and queue of one cluster: the single writer that turns inputs into
 * decisions. Memory is a cache of the store: every change is written through {@link Effects} as a
 * store entry in the same exactly-once transaction as the decision it belongs to, and
 * {@link #restore} rebuilds exactly this state (ledger version included) from the store. The
 * core's {@link ClusterSnapshot} refuses any overbooking, so a GPU can never be given twice — not
 * even by a restored ledger.
 *
 * <p>Store entries, keyed {@code cluster|kind|id}: {@code J} the job's submission bytes,
 * {@code V} its verdict bytes, {@code R} the decision that binds a running job (its GPUs),
 * {@code N} node inventory bytes, {@code S} a service reservation, {@code H} a hold,
 * {@code P} an open preemption request, {@code B} a compensation boost, {@code F} a slot forecast,
 * {@code M} meta (ledger version, logical now, defragmentation history), {@code E} a job being
 * evicted on a reservation-start or idle-reclaim decision (decision id, trigger, reservation,
 * service). A reservation-start request is a {@code P} entry keyed {@code reservation/<id>}.
 */
final class ClusterLedger {

  /** Where the ledger's outputs and store writes go; buffered until the record is done. */
  interface Effects {
    /** Serializes and writes {@code value} (a tombstone when null); returns the bytes. */
    byte[] emit(String topic, String key, SpecificRecord value);

    /** Writes ({@code null}: deletes) store entry {@code kind|id} of this cluster. */
    void put(String kind, String id, byte[] value);
  }

  static final String JOB = "J";
  static final String VERDICT = "V";
  static final String RUNNING = "R";
  static final String NODE = "N";
  static final String RESERVATION = "S";
  static final String HOLD = "H";
  static final String PENDING = "P";
  static final String BOOST = "B";
  static final String FORECAST = "F";
  static final String META = "M";
  static final String EVICTING = "E";
  static final String RESERVATION_START = "RESERVATION_START";
  static final String IDLE_RECLAIM = "IDLE_RECLAIM";
  /** Subject prefix of a reservation start: the preemptor id of its request and decision. */
  static final String RESERVATION_SUBJECT = "reservation/";

  private static final Lane[] LANES = Lane.values();

  private final String cluster;
  private final LedgerPolicy policy;
  private final PlacementMeters meters;
  private final Deserializer<Object> deserializer;
  private final Placer placer;
  private final PassiveDefragPlanner passive;
  private final ActiveDefragPlanner active;
  private final FragmentationReporting reporting;
  private Effects fx;

  // ---- the persisted state (cache of the store)
  private final TreeMap<String, NodeInventory> nodes = new TreeMap<>();
  private final Map<String, JobSubmitted> submissions = new HashMap<>();
  private final Map<String, QuotaVerdict> verdicts = new HashMap<>();
  private final Map<String, Instant> startedAt = new HashMap<>();
  private final TreeMap<String, Reservation> serviceReservations = new TreeMap<>();
  private final TreeMap<String, Hold> holds = new TreeMap<>();
  private final Map<String, String[]> pending = new HashMap<>();
  private final Map<String, Integer> boosts = new HashMap<>();
  private final TreeMap<Long, Object[]> forecasts = new TreeMap<>();
  private final List<PastMigration> migrations = new ArrayList<>();
  /** Victims of applied reservation-start / idle-reclaim decisions until they stop. */
  private final Map<String, String[]> evicting = new HashMap<>();
  private ClusterSnapshot snap;
  /**
   * Staging copy of {@link #snap}: a change is applied here and frozen with one
   * {@code build()}, instead of {@code snap.with…()}, which rebuilds a builder (a fresh ledger per
   * node) for every change — the difference is most of a placement's cost on 1,250 nodes.
   */
  private ClusterSnapshot.Builder mirror;
  private long version;
  private Instant now = Instant.EPOCH;
  private Instant lastActiveDefrag;
  /** The last fragmentation report: its event time and cluster figure (T2 events). */
  private Instant lastReportAt;
  private double lastReportIndex;

  // ---- derived, rebuilt on restore
  private final EnumMap<Lane, TreeSet<QueuedJob>> lanes = new EnumMap<>(Lane.class);
  private final EnumMap<Lane, TreeSet<QueuedJob>> fresh = new EnumMap<>(Lane.class);
  private final EnumMap<Lane, Long> blockedAt = new EnumMap<>(Lane.class);
  private final EnumMap<Lane, Instant> blockedNow = new EnumMap<>(Lane.class);
  private final Map<String, QueuedJob> queued = new HashMap<>();
  private final Set<String> parked = new HashSet<>();
  private final Set<String> announced = new HashSet<>();
  private final Map<String, String> published = new HashMap<>();
  private final LinkedHashSet<String> newlyQueued = new LinkedHashSet<>();
  private final Map<String, Long> defragTried = new HashMap<>();
  /** Ledger version at which each running job's current allocation was bound (its identity). */
  private final Map<String, Long> boundAt = new HashMap<>();

  ClusterLedger(String cluster, LedgerPolicy policy, PlacementMeters meters,
      Deserializer<Object> deserializer) {
    this.cluster = cluster;
    this.policy = policy;
    this.meters = meters;
    this.deserializer = deserializer;
    this.placer = new Placer(policy.placement());
    this.passive = new PassiveDefragPlanner(policy.defrag(), placer);
    this.active = new ActiveDefragPlanner(policy.defrag(), placer);
    this.reporting = new FragmentationReporting(policy.fragmentationReporting());
    for (Lane l : LANES) {
      lanes.put(l, new TreeSet<>(QueueOrder.INSTANCE));
      fresh.put(l, new TreeSet<>(QueueOrder.INSTANCE));
    }
  }

  /** The current ledger, or {@code null} before any inventory. */
  ClusterSnapshot snapshot() {
    return snap;
  }

  // =================================================================== restore

  /** Rebuilds the state from the store entries of this cluster (kind → id → bytes). */
  void restore(Map<String, Map<String, byte[]>> store) {
    store.getOrDefault(NODE, Map.of()).forEach((id, b) -> nodes.put(id, decode(b)));
    store.getOrDefault(JOB, Map.of()).forEach((id, b) -> submissions.put(id, decode(b)));
    store.getOrDefault(VERDICT, Map.of()).forEach((id, b) -> verdicts.put(id, decode(b)));
    Map<String, io.tideline.events.PlacementDecision> bound = new TreeMap<>();
    store.getOrDefault(RUNNING, Map.of()).forEach((id, b) -> bound.put(id, decode(b)));
    store.getOrDefault(RESERVATION, Map.of()).forEach(
        (id, b) -> serviceReservations.put(id, Hold.decodeReservation(id, b)));
    store.getOrDefault(HOLD, Map.of()).forEach((id, b) -> holds.put(id, Hold.decode(id, b)));
    store.getOrDefault(PENDING, Map.of()).forEach((id, b) -> pending.put(id, str(b).split("\t")));
    store.getOrDefault(BOOST, Map.of()).forEach((id, b) -> boosts.put(id, Integer.valueOf(str(b))));
    store.getOrDefault(EVICTING, Map.of()).forEach(
        (id, b) -> evicting.put(id, str(b).split("\t", -1)));
    store.getOrDefault(FORECAST, Map.of()).forEach((id, b) -> {
      String[] f = str(b).split("\t");
      forecasts.put(Long.valueOf(id), new Object[] {Instant.ofEpochMilli(Long.parseLong(f[0])),
          SlotClass.valueOf(f[1])});
    });
    Map<String, byte[]> meta = store.getOrDefault(META, Map.of());
    version = meta.containsKey("version") ? Long.parseLong(str(meta.get("version"))) : 0;
    now = meta.containsKey("now") ? Instant.ofEpochMilli(Long.parseLong(str(meta.get("now"))))
        : Instant.EPOCH;
    if (meta.containsKey("lastActiveDefrag")) {
      lastActiveDefrag = Instant.ofEpochMilli(Long.parseLong(str(meta.get("lastActiveDefrag"))));
    }
    if (meta.containsKey("fragmentationReport")) {
      String[] f = str(meta.get("fragmentationReport")).split("\t");
      lastReportAt = Instant.ofEpochMilli(Long.parseLong(f[0]));
      lastReportIndex = Double.parseDouble(f[1]);
    }
    if (meta.containsKey("migrations")) {
      for (String m : str(meta.get("migrations")).split(";")) {
        if (!m.isEmpty()) {
          String[] f = m.split(":");
          migrations.add(new PastMigration(Instant.ofEpochMilli(Long.parseLong(f[0])),
              Double.parseDouble(f[1])));
        }
      }
    }
    Map<String, Allocation> running = new TreeMap<>();
    bound.forEach((id, d) -> {
      running.put(id, new Allocation(request(id), fromEvents(d.getAssignments())));
      startedAt.put(id, d.getDecidedAt());
      boundAt.put(id, d.getLedgerVersion());
    });
    rebuildSnapshot(version, running);
    for (String id : new TreeSet<>(submissions.keySet())) {
      enqueue(id);
    }
    // positions of restored jobs may be on the compacted topic: tombstone them when they leave
    queued.keySet().forEach(id -> published.put(id, "restored"));
    newlyQueued.clear();
    gauges(false);
  }

  private void rebuildSnapshot(long atVersion, Map<String, Allocation> running) {
    // A node that LEFT is gone: not part of the topology at all (a DRAINED one is cordoned).
    List<Node> list = new ArrayList<>();
    nodes.values().stream().filter(n -> n.getChange() != NodeChange.LEFT)
        .forEach(n -> list.add(toNode(n)));
    if (list.isEmpty()) {
      snap = null;
      mirror = null;
      version = atVersion;
      return;
    }
    ClusterSnapshot.Builder b = ClusterSnapshot.builder(Topology.of(list));
    running.values().forEach(b::allocate);
    serviceReservations.values().forEach(b::reserve);
    holds.values().forEach(h -> b.reserve(h.reservation()));
    nodes.values().stream().filter(n -> n.getChange() == NodeChange.DRAINED)
        .forEach(n -> b.cordon(n.getNodeId()));
    snap = b.version(atVersion).build();
    mirror = b;
    version = atVersion;
  }

  /** Freezes the mirror as the next ledger version. */
  private void commit() {
    version = version + 1;
    snap = mirror.version(version).build();
  }

  private void allocate(Allocation a) {
    try {
      mirror.allocate(a);
    } catch (IllegalArgumentException e) {
      rebuildSnapshot(version, runningAssignments()); // drop whatever the failed call staged
      throw e;
    }
    commit();
  }

  private Map<String, Allocation> runningAssignments() {
    return snap == null ? Map.of() : snap.allocations();
  }

  // =================================================================== inputs

  void onInventory(Effects fx, byte[] raw, NodeInventory n) {
    this.fx = fx;
    advance(n.getObservedAt());
    NodeInventory old = nodes.get(n.getNodeId());
    if (old != null && sameNode(old, n)) {
      return;
    }
    if (n.getChange() == NodeChange.LEFT) {
      nodeLeft(raw, n);
      return;
    }
    Map<String, Allocation> running = runningAssignments();
    nodes.put(n.getNodeId(), n);
    try {
      rebuildSnapshot(version + 1, running);
    } catch (IllegalArgumentException e) {
      // the change contradicts running allocations (e.g. fewer GPUs than in use): refuse it
      if (old == null) {
        nodes.remove(n.getNodeId());
      } else {
        nodes.put(n.getNodeId(), old);
      }
      rebuildSnapshot(version - 1, running);
      throw new IllegalArgumentException("inventory change of " + n.getNodeId()
          + " contradicts the ledger: " + e.getMessage(), e);
    }
    fx.put(NODE, n.getNodeId(), raw);
    putVersion();
    // a changed fleet may fit jobs parked as unplaceable
    for (String id : new ArrayList<>(parked)) {
      parked.remove(id);
      enqueue(id);
    }
    pass();
    gauges(false);
  }

  /**
   * A node LEFT the cluster (NodeInventory: it is gone, unlike DRAINED, where running work
   * finishes). Nothing is ever placed on it again, and whatever it held is lost:
   *
   * <ol>
   *   <li>every job with a GPU on it is released (RELEASED, reason "node left": a gang loses all
   *       its GPUs, W3) and queued again with that reason, keeping its verdict and boost;
   *   <li>holds that would hand its GPUs to a preemptor or a defragmented job are dropped and the
   *       waiting job queued normally; migration holds keep only their GPUs elsewhere;
   *   <li>service reservations lose its GPUs (the rest of each reservation stands);
   *   <li>the node leaves the topology (ledger version + 1), and the queue gets a pass.
   * </ol>
   */
  private void nodeLeft(byte[] raw, NodeInventory n) {
    String node = n.getNodeId();
    String why = "node " + node + " left the cluster at " + n.getObservedAt();
    List<String> lost = new ArrayList<>();
    TreeMap<String, Allocation> running = new TreeMap<>(runningAssignments());
    for (Allocation a : running.values()) {
      if (a.assignments().stream().anyMatch(g -> g.nodeId().equals(node))) {
        lost.add(a.jobId());
      }
    }
    // 1. lost allocations: out of the ledger, RELEASED with the reason
    for (String id : lost) {
      Allocation a = running.remove(id);
      startedAt.remove(id);
      boundAt.remove(id);
      stopEvicting(id);
      fx.put(RUNNING, id, null);
      decision(id, PlacementOutcome.RELEASED, a.assignments(), null, false, 0,
          List.of(new TraceEntry(id, "T1 node left", "allocation lost", why + ": "
              + String.format(Locale.ROOT, "%.2f", a.gpuShare()) + " GPU(s) on "
              + a.assignments().stream().map(GpuAssignment::nodeId).distinct().sorted().toList()
              + " lost; the job queues again")));
    }
    // 2. holds that touch the node
    List<String> orphans = new ArrayList<>();
    for (Hold h : new ArrayList<>(holds.values())) {
      List<GpuAssignment> keep = h.assignments().stream()
          .filter(g -> !g.nodeId().equals(node)).toList();
      if (keep.size() == h.assignments().size()) {
        continue;
      }
      holds.remove(h.id());
      fx.put(HOLD, h.id(), null);
      if (h.kind() == Hold.Kind.MIGRATION && !keep.isEmpty()) {
        Hold rest = new Hold(h.id(), h.kind(), h.holder(), h.decisionId(), h.waitingFor(), keep);
        holds.put(rest.id(), rest);
        fx.put(HOLD, rest.id(), rest.encode());
      } else if (!h.holder().isEmpty()) {
        orphans.add(h.holder());
      }
    }
    // 3. reservations lose the node's GPUs
    for (Reservation r : new ArrayList<>(serviceReservations.values())) {
      TreeSet<GpuRef> keep = new TreeSet<>();
      r.gpus().stream().filter(g -> !g.nodeId().equals(node)).forEach(keep::add);
      if (keep.size() == r.gpus().size()) {
        continue;
      }
      if (keep.isEmpty()) {
        serviceReservations.remove(r.id());
        fx.put(RESERVATION, r.id(), null);
      } else {
        Reservation rest = r.withGpus(keep);
        serviceReservations.put(r.id(), rest);
        fx.put(RESERVATION, r.id(), Hold.encodeReservation(rest));
      }
    }
    // 4. the node leaves the topology
    nodes.put(node, n);
    fx.put(NODE, node, raw);
    rebuildSnapshot(version + 1, running);
    putVersion();
    for (String id : lost) {
      requeue(id, why);
    }
    for (String id : orphans) {
      requeue(id, why + ": the GPUs held for the job are gone");
    }
    pass();
    publishNew();
    gauges(false);
  }

  /** Puts a job whose GPUs were lost back in its lane, with a QUEUED decision saying why. */
  private void requeue(String id, String why) {
    if (!submissions.containsKey(id) || startedAt.containsKey(id)) {
      return;
    }
    announced.remove(id);
    enqueue(id);
    announced.add(id);
    decision(id, PlacementOutcome.QUEUED, List.of(), null, false, 0,
        List.of(new TraceEntry(id, "T1 node left", "requeued", why)));
  }

  void onSubmitted(Effects fx, byte[] raw, JobSubmitted e) {
    this.fx = fx;
    advance(e.getSubmittedAt());
    if (startedAt.containsKey(e.getJobId())) {
      return; // a duplicate of a running job changes nothing
    }
    submissions.put(e.getJobId(), e);
    fx.put(JOB, e.getJobId(), raw);
    dequeue(e.getJobId(), false);
    enqueue(e.getJobId());
    pass();
    publishNew();
    gauges(false);
  }

  void onVerdict(Effects fx, byte[] raw, QuotaVerdict v) {
    this.fx = fx;
    advance(v.getDecidedAt());
    verdicts.put(v.getJobId(), v);
    fx.put(VERDICT, v.getJobId(), raw);
    if (startedAt.containsKey(v.getJobId())) {
      return;
    }
    dequeue(v.getJobId(), !admitted(v));
    enqueue(v.getJobId());
    pass();
    publishNew();
    gauges(false);
  }

  void onLifecycle(Effects fx, JobLifecycle l) {
    this.fx = fx;
    advance(l.getOccurredAt());
    String id = l.getJobId();
    String type = l.getType().name();
    String[] ev = "PREEMPTED".equals(type) || "COMPLETED".equals(type) || "FAILED".equals(type)
        ? stopEvicting(id) : null;
    switch (type) {
      case "COMPLETED", "FAILED" -> {
        release(id, type, ev);
        forget(id);
      }
      case "PREEMPTED" -> {
        release(id, type, ev);
        if (ev != null && IDLE_RECLAIM.equals(ev[1])) {
          forget(id); // Q7: reclaimed, not queued again (its owner resubmits to run again)
          break;
        }
        int boost = boosts.getOrDefault(id, 0) + 1; // P6: compensation when it queues again
        boosts.put(id, boost);
        fx.put(BOOST, id, bytes(Integer.toString(boost)));
        enqueue(id);
      }
      default -> { }
    }
    for (Hold h : new ArrayList<>(holds.values())) {
      if (h.waitingFor().contains(id) && h.drainedBy(type)) {
        Hold rest = h.without(id);
        if (rest.waitingFor().isEmpty()) {
          resolve(rest, type + " of " + id);
        } else {
          holds.put(rest.id(), rest);
          fx.put(HOLD, rest.id(), rest.encode());
        }
      }
    }
    pass();
    publishNew();
    gauges(false);
  }

  void onReservation(Effects fx, CapacityReservation c) {
    this.fx = fx;
    advance(c.getIssuedAt());
    String id = c.getReservationId();
    String overId = id + "#over-issue";
    if (snap == null) {
      throw new IllegalStateException("reservation " + id + " before any inventory of cluster "
          + cluster);
    }
    switch (c.getAction()) {
      case RELEASE -> {
        if (serviceReservations.containsKey(id) || serviceReservations.containsKey(overId)) {
          dropReservation(id); // a release naming the reservation: all of it
          dropReservation(overId);
        } else {
          releaseEarly(c); // the forecaster's F3 release: a count of the service's GPUs
        }
      }
      case RESERVE, OVER_ISSUE -> {
        String rid = c.getAction() == io.tideline.events.ReservationAction.RESERVE ? id : overId;
        dropReservation(rid);
        int n = (int) Math.ceil(c.getGpus() - 1e-9);
        Reservation r = new Reservation(rid, c.getServiceId(), pickGpus(n), c.getValidFrom(),
            c.getValidUntil());
        serviceReservations.put(rid, r);
        mirror.reserve(r);
        commit();
        fx.put(RESERVATION, rid, Hold.encodeReservation(r));
        putVersion();
      }
      default -> { }
    }
    startReservations();
    pass();
    publishNew();
    gauges(false);
  }

  void onClock(Effects fx, ClockTick t) {
    this.fx = fx;
    advance(t.getTime());
    if (snap != null) {
      startReservations();
      activeDefrag();
    }
    pass();
    refreshPositions();
    gauges(true);
  }

  void onForecast(Effects fx, SlotForecast f) {
    this.fx = fx;
    advance(f.getComputedAt());
    if (f.getSlotClass() == io.tideline.events.SlotClass.UNKNOWN) {
      return;
    }
    SlotClass c = SlotClass.valueOf(f.getSlotClass().name());
    long start = f.getSlotStart().toEpochMilli();
    forecasts.put(start, new Object[] {f.getSlotEnd(), c});
    fx.put(FORECAST, Long.toString(start), bytes(f.getSlotEnd().toEpochMilli() + "\t" + c));
    // forget slots that ended before now
    for (Iterator<Map.Entry<Long, Object[]>> it = forecasts.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Long, Object[]> e = it.next();
      if (!((Instant) e.getValue()[0]).isAfter(now)) {
        it.remove();
        fx.put(FORECAST, Long.toString(e.getKey()), null);
      }
    }
  }

  void onPreemptionDecision(Effects fx, PreemptionDecision pd) {
    this.fx = fx;
    advance(pd.getDecidedAt());
    String trigger = pd.getTrigger() == null ? "UNPLACEABLE" : pd.getTrigger();
    if (RESERVATION_START.equals(trigger)) {
      onReservationStartDecision(pd);
      return;
    }
    if (IDLE_RECLAIM.equals(trigger)) {
      onIdleReclaimDecision(pd);
      return;
    }
    String id = pd.getPreemptorJobId();
    String[] p = pending.get(id);
    boolean matches = p != null && p[0].equals(pd.getRequestId()) && "OPEN".equals(p[2]);
    if (pd.getOutcome() == PreemptionOutcome.REFUSED) {
      if (matches) {
        // refused at this version: ask again only once the ledger has changed
        String[] refused = {p[0], Long.toString(version), "REFUSED"};
        pending.put(id, refused);
        fx.put(PENDING, id, bytes(String.join("\t", refused)));
      }
      meters.preemptionDecision(cluster, "refused");
      return;
    }
    // 1. the plan must answer the open request of a job still waiting
    List<TraceEntry> trace = new ArrayList<>();
    String stale = null;
    Set<String> victims = new TreeSet<>();
    pd.getVictims().forEach(v -> victims.add(v.getJobId()));
    if (!matches) {
      stale = "no open preemption request " + pd.getRequestId() + " for " + id;
    } else if (!queued.containsKey(id)) {
      stale = "preemptor " + id + " is no longer waiting";
    } else {
      // 2. every victim must still run
      List<String> gone = victims.stream().filter(v -> !startedAt.containsKey(v)).toList();
      if (!gone.isEmpty() || victims.isEmpty()) {
        stale = "victim(s) " + gone + " no longer running";
      }
    }
    PlacementDecision d = null;
    if (stale == null) {
      // 3. re-check on the current ledger: the preemptor must fit once the victims are gone
      d = placer.decideIfReleased(now, snap, queued.get(id).job(), victims);
      if (pd.getLedgerVersion() != version) {
        trace.add(new TraceEntry(id, "P ledger version", d.placed() ? "re-checked" : "stale",
            "plan made on v" + pd.getLedgerVersion() + ", ledger now v" + version
                + (d.placed() ? "; the preemptor still fits once the victims are gone"
                : "; the preemptor would no longer fit")));
      }
      if (!d.placed()) {
        stale = "ledger moved on from v" + pd.getLedgerVersion() + " to v" + version
            + ": the preemptor would not fit even without the victims (" + d.reason() + ")";
      }
    }
    if (stale != null) {
      meters.preemptionDecision(cluster, "stale");
      trace.add(new TraceEntry(pd.getDecisionId(), "P re-check", "not applied", stale));
      if (matches) {
        pending.remove(id);
        fx.put(PENDING, id, null); // the next pass may ask again on the current ledger
      }
      if (submissions.containsKey(id) && !startedAt.containsKey(id)) {
        decision(id, PlacementOutcome.QUEUED, List.of(), null, false, 0, trace);
      }
      pass();
      publishNew();
      return;
    }
    // 4. apply: evict the victims, hold the GPUs the preemptor will get
    trace.add(new TraceEntry(pd.getDecisionId(), "P re-check", "applied", "victims " + victims
        + " still running; the preemptor fits once they stop"));
    trace.addAll(d.trace());
    Hold hold = new Hold("hold:" + id, Hold.Kind.PREEMPT, id, pd.getDecisionId(), victims,
        d.assignments());
    addHold(hold);
    for (Victim v : pd.getVictims()) {
      evict(pd.getDecisionId() + "/" + v.getJobId(), v.getJobId(), EvictionKind.PREEMPT,
          pd.getDecisionId(), List.of(), "preempted for " + id + " (plan " + pd.getDecisionId()
              + ", preemptor score " + String.format(Locale.ROOT, "%.2f", pd.getPreemptorScore())
              + ")");
    }
    pending.remove(id);
    fx.put(PENDING, id, null);
    dequeue(id, true);
    meters.preemptionDecision(cluster, "applied");
    decision(id, PlacementOutcome.HELD_FOR_PREEMPTOR, d.assignments(), d.level(), d.crossDomain(),
        d.score(), trace);
    pass();
    publishNew();
    gauges(false);
  }

  // =================================================================== reclaim decisions

  /**
   * F2 at the reservation start: placement picked the reserved GPUs, so placement names the jobs
   * still on them. For every service reservation that has started (and is not an over-issue from
   * the shared pool) and has no request yet, the jobs on its GPUs other than the service's own
   * instances are sent to preemption ({@code preemption.requests}, trigger RESERVATION_START, with
   * the holders and the share of reserved GPUs each holds); preemption decides whom among them
   * to evict with its full rules. Handled once per reservation (a {@code P} entry
   * {@code reservation/<id>}: OPEN until answered, then DONE); a stale answer re-opens it.
   */
  private void startReservations() {
    if (snap == null) {
      return;
    }
    Topology topo = snap.topology();
    for (Reservation r : serviceReservations.values()) {
      String key = RESERVATION_SUBJECT + r.id();
      if (r.id().endsWith("#over-issue") || r.startsAt().isAfter(now) || !r.activeAt(now)
          || pending.containsKey(key)) {
        continue;
      }
      // 1. the jobs on the reserved GPUs that are not the service's own instances
      TreeMap<String, Double> holders = new TreeMap<>();
      for (GpuRef g : r.gpus()) {
        int i = topo.indexOf(g.nodeId());
        if (i < 0 || g.gpuIndex() >= snap.ledger(i).gpuCount()) {
          continue;
        }
        snap.ledger(i).holders(g.gpuIndex()).forEach((job, share) -> {
          Allocation a = snap.allocations().get(job);
          if (a != null && !r.serviceId().equals(a.job().serviceId())) {
            holders.merge(job, share, Double::sum);
          }
        });
      }
      if (holders.isEmpty()) {
        String[] done = {"", Long.toString(version), "DONE", r.id()};
        pending.put(key, done);
        fx.put(PENDING, key, bytes(String.join("\t", done)));
        continue;
      }
      // 2. ask preemption to decide among them (W4/P1-P6 are preemption's)
      double held = holders.values().stream().mapToDouble(Double::doubleValue).sum();
      int gpus = (int) Math.ceil(held - 1e-9);
      String requestId = cluster + "/" + key + "/v" + version;
      List<io.tideline.events.ReservedGpuHolder> list = new ArrayList<>();
      holders.forEach((job, share) -> list.add(new io.tideline.events.ReservedGpuHolder(job,
          share)));
      fx.emit(TopicCatalogue.PREEMPTION_REQUESTS, cluster, PreemptionRequest.newBuilder()
          .setRequestId(requestId).setCluster(cluster).setPreemptorJobId(key)
          .setPreemptorClass(io.tideline.events.WorkloadClass.ONLINE_INFERENCE)
          .setShape(ResourceRequest.newBuilder().setGpuCount(gpus).setGpuShare(1.0)
              .setGangSize(1).setNodes(0).setAllowedGpuModels(List.of())
              .setHardwarePreference(HardwarePreference.ANY).build())
          .setTrigger(PreemptionTrigger.RESERVATION_START).setLedgerVersion(version)
          .setRequestedAt(now).setReservationId(r.id()).setServiceId(r.serviceId())
          .setHolders(list).build());
      String[] open = {requestId, Long.toString(version), "OPEN", r.id()};
      pending.put(key, open);
      fx.put(PENDING, key, bytes(String.join("\t", open)));
      decision(key, PlacementOutcome.PREEMPTION_REQUESTED, List.of(), null, false, 0,
          List.of(new TraceEntry(key, "F2 reservation start", "requested", "reservation "
              + r.id() + " for " + r.serviceId() + " started at " + r.startsAt() + "; "
              + String.format(Locale.ROOT, "%.2f", held) + " of its " + r.gpus().size()
              + " GPU(s) held by " + holders.keySet() + "; request " + requestId)));
    }
  }

  /**
   * Applies preemption's answer to a reservation-start request: only the answer to the open
   * request, only if every victim still runs on the allocation the decision saw and holds GPUs of
   * the reservation. The victims are evicted; their reserved GPUs stay the service's when they
   * stop (from its start a reservation admits only the service), the rest go back to the pool.
   */
  private void onReservationStartDecision(PreemptionDecision pd) {
    String key = pd.getPreemptorJobId();
    String[] p = pending.get(key);
    boolean matches = p != null && p[0].equals(pd.getRequestId()) && "OPEN".equals(p[2]);
    if (pd.getOutcome() == PreemptionOutcome.REFUSED) {
      if (matches) {
        markDone(key, p);
      }
      meters.preemptionDecision(cluster, "refused");
      return;
    }
    Set<String> victims = new TreeSet<>();
    pd.getVictims().forEach(v -> victims.add(v.getJobId()));
    Reservation r = p == null ? null : serviceReservations.get(p[3]);
    // 1. the answer to our open request, for a reservation that still holds its GPUs
    String stale;
    if (!matches) {
      stale = "no open reservation-start request " + pd.getRequestId() + " for " + key;
    } else if (r == null || !r.activeAt(now)) {
      stale = "reservation " + p[3] + " no longer holds GPUs";
    } else {
      // 2. every victim still runs as the decision assumed, on GPUs of the reservation
      stale = victimsStale(pd, victims);
      for (String v : victims) {
        if (stale == null && snap.allocations().get(v).assignments().stream()
            .noneMatch(g -> r.gpus().contains(g.gpu()))) {
          stale = "victim " + v + " holds none of reservation " + r.id() + "'s GPUs";
        }
      }
    }
    if (stale != null) {
      refuseStale(pd, key, stale);
      if (matches) {
        pending.remove(key); // the next tick asks again about whoever holds the GPUs now
        fx.put(PENDING, key, null);
      }
      return;
    }
    // 3. apply: evict, remember what for (the release keeps the reserved GPUs for the service)
    for (Victim v : pd.getVictims()) {
      evictFor(pd, v.getJobId(), EvictionKind.PREEMPT, RESERVATION_START, r.id(), r.serviceId(),
          "preempted for reservation " + r.id() + " of " + r.serviceId() + " starting at "
              + r.startsAt() + " (decision " + pd.getDecisionId() + ", preemptor score "
              + String.format(Locale.ROOT, "%.2f", pd.getPreemptorScore()) + ")");
    }
    markDone(key, p);
    meters.preemptionDecision(cluster, "applied");
  }

  /**
   * Applies quota's idle reclaim as preemption decided it (Q7): the job must still run on the
   * allocation the decision saw; it is evicted (kind RECLAIM) and, once stopped, its GPUs go back
   * to the pool and it is not queued again.
   */
  private void onIdleReclaimDecision(PreemptionDecision pd) {
    if (pd.getOutcome() == PreemptionOutcome.REFUSED) {
      meters.preemptionDecision(cluster, "refused");
      return;
    }
    Set<String> victims = new TreeSet<>();
    pd.getVictims().forEach(v -> victims.add(v.getJobId()));
    String stale = victimsStale(pd, victims);
    if (stale != null) {
      refuseStale(pd, pd.getPreemptorJobId(), stale);
      return;
    }
    for (String v : victims) {
      evictFor(pd, v, EvictionKind.RECLAIM, IDLE_RECLAIM, "", "", "idle reclaim (Q7): "
          + "holds GPUs without using them (decision " + pd.getDecisionId() + ")");
    }
    meters.preemptionDecision(cluster, "applied");
  }

  /**
   * Why the decision's victims are not as it assumed, or null: each must still run, on the
   * allocation bound at or before the decision's ledger version (a job released and placed again
   * since is another allocation), and not already be on its way out.
   */
  private String victimsStale(PreemptionDecision pd, Set<String> victims) {
    if (victims.isEmpty()) {
      return "no victims named";
    }
    List<String> gone = victims.stream().filter(v -> !startedAt.containsKey(v)
        || snap == null || !snap.allocations().containsKey(v)).toList();
    if (!gone.isEmpty()) {
      return "victim(s) " + gone + " no longer running";
    }
    for (String v : victims) {
      long bound = boundAt.getOrDefault(v, 0L);
      if (bound > pd.getLedgerVersion()) {
        return "victim " + v + " runs on an allocation bound at v" + bound
            + ", after the decision's v" + pd.getLedgerVersion();
      }
      if (evicting.containsKey(v)) {
        return "victim " + v + " is already being evicted (" + evicting.get(v)[0] + ")";
      }
      for (Hold h : holds.values()) {
        if (h.kind() == Hold.Kind.PREEMPT && h.waitingFor().contains(v)) {
          return "victim " + v + " is already being evicted (" + h.decisionId() + ")";
        }
      }
    }
    return null;
  }

  /** A stale decision: not applied, the reason in a trace (a QUEUED decision of its subject). */
  private void refuseStale(PreemptionDecision pd, String subject, String stale) {
    meters.preemptionDecision(cluster, "stale");
    decision(subject, PlacementOutcome.QUEUED, List.of(), null, false, 0, List.of(
        new TraceEntry(pd.getDecisionId(), "P re-check", "not applied", stale)));
  }

  private void evictFor(PreemptionDecision pd, String jobId, EvictionKind kind, String trigger,
      String reservationId, String serviceId, String reason) {
    evict(pd.getDecisionId() + "/" + jobId, jobId, kind, pd.getDecisionId(), List.of(), reason);
    String[] ev = {pd.getDecisionId(), trigger, reservationId, serviceId};
    evicting.put(jobId, ev);
    fx.put(EVICTING, jobId, bytes(String.join("\t", ev)));
  }

  private void markDone(String key, String[] p) {
    String[] done = {p[0], Long.toString(version), "DONE", p[3]};
    pending.put(key, done);
    fx.put(PENDING, key, bytes(String.join("\t", done)));
  }

  // =================================================================== the queue

  private static boolean admitted(QuotaVerdict v) {
    return v.getVerdict() == Verdict.GUARANTEED || v.getVerdict() == Verdict.SHARED;
  }

  /** Puts the job in its lane if it waits: submitted, admitted, not running, not held. */
  private void enqueue(String id) {
    QuotaVerdict v = verdicts.get(id);
    if (queued.containsKey(id) || !submissions.containsKey(id) || v == null || !admitted(v)
        || startedAt.containsKey(id) || holds.containsKey("hold:" + id)) {
      return;
    }
    JobRequest job = request(id);
    QueuedJob q = new QueuedJob(job, new QuotaRank(v.getVerdict() == Verdict.GUARANTEED ? 0 : 1,
        v.getVerdict().name()), new FairShare(v.getFairShareUsage()),
        new CompensationBoost(boosts.getOrDefault(id, 0)));
    queued.put(id, q);
    lanes.get(job.workloadClass().lane()).add(q);
    fresh.get(job.workloadClass().lane()).add(q);
    newlyQueued.add(id);
  }

  private void dequeue(String id, boolean tombstone) {
    QueuedJob q = queued.remove(id);
    if (q != null) {
      lanes.get(q.job().workloadClass().lane()).remove(q);
      fresh.get(q.job().workloadClass().lane()).remove(q);
    }
    parked.remove(id);
    newlyQueued.remove(id);
    if (published.remove(id) != null && tombstone) {
      fx.emit(TopicCatalogue.PLACEMENT_QUEUE, id, null);
    }
  }

  /**
   * One placement pass (Q6): lanes are offered in {@link QueueOrder} of their heads (inference,
   * batch, training); inside a lane jobs are tried in queue order, and a lane stops after
   * {@link LedgerPolicy#maxFailuresPerLane()} refusals so a blocked lane costs bounded work and
   * never holds up another lane. A lane blocked at this ledger version and time is re-tried only
   * for newly queued jobs (backfill) until the ledger or the clock moves.
   */
  private void pass() {
    if (snap == null) {
      return;
    }
    List<Lane> order = new ArrayList<>();
    for (Lane l : LANES) {
      if (!lanes.get(l).isEmpty()) {
        order.add(l);
      }
    }
    order.sort(Comparator.comparing(l -> lanes.get(l).first(), QueueOrder.INSTANCE));
    boolean defragOffered = false;
    for (Lane lane : order) {
      TreeSet<QueuedJob> set = lanes.get(lane);
      boolean full = !Objects.equals(blockedAt.get(lane), snap.version())
          || !now.equals(blockedNow.get(lane));
      List<QueuedJob> only = full ? null : new ArrayList<>(fresh.get(lane));
      fresh.get(lane).clear();
      int failures = 0;
      int k = 0;
      QueuedJob q = full ? (set.isEmpty() ? null : set.first())
          : (only.isEmpty() ? null : only.get(0));
      while (q != null && failures < policy.maxFailuresPerLane()) {
        QueuedJob next = full ? set.higher(q) : (++k < only.size() ? only.get(k) : null);
        if (queued.get(q.job().jobId()) == q) {
          PlacementDecision d = placer.decide(now, snap, q.job());
          if (d.placed()) {
            bind(q.job(), d.assignments(), d.level(), d.crossDomain(), d.score(), d.trace());
          } else {
            failures++;
            defragOffered |= refused(q, d, defragOffered);
          }
        }
        q = next;
      }
      if (failures >= policy.maxFailuresPerLane()) {
        blockedAt.put(lane, snap.version());
        blockedNow.put(lane, now);
      } else {
        blockedAt.remove(lane);
        blockedNow.remove(lane);
      }
    }
  }

  /** What a refusal leads to; returns whether a passive defragmentation was planned. */
  private boolean refused(QueuedJob q, PlacementDecision d, boolean defragOffered) {
    String id = q.job().jobId();
    UnplaceableReason r = d.reason();
    if (r == UnplaceableReason.INVALID_SHAPE || r == UnplaceableReason.NO_MATCHING_GPU_MODEL) {
      announce(id, d.trace());
      dequeue(id, true);
      parked.add(id); // offered again when the fleet changes
      return false;
    }
    if (q.job().preemptionRight()) {
      requestPreemption(q, d);
      return false;
    }
    if (r == UnplaceableReason.FRAGMENTED && !defragOffered
        && !Objects.equals(defragTried.get(id), snap.version())) {
      defragTried.put(id, snap.version());
      if (passiveDefrag(q)) {
        return true;
      }
    }
    announce(id, d.trace());
    return false;
  }

  private void announce(String id, List<TraceEntry> trace) {
    if (announced.add(id)) {
      decision(id, PlacementOutcome.QUEUED, List.of(), null, false, 0, trace);
    }
  }

  private void requestPreemption(QueuedJob q, PlacementDecision d) {
    String id = q.job().jobId();
    String[] p = pending.get(id);
    if (p != null && ("OPEN".equals(p[2]) || Long.parseLong(p[1]) == version)) {
      announce(id, d.trace());
      return;
    }
    String requestId = cluster + "/preempt/" + id + "/v" + version;
    JobSubmitted e = submissions.get(id);
    ResourceRequest shape = e.getResources() == null ? ResourceRequest.newBuilder()
        .setGpuCount(q.job().gpuCount()).setGpuShare(q.job().gpuShare())
        .setGangSize(q.job().gangSize()).setNodes(q.job().nodes())
        .setAllowedGpuModels(q.job().allowedGpuModels())
        .setHardwarePreference(HardwarePreference.ANY).build() : e.getResources();
    fx.emit(TopicCatalogue.PREEMPTION_REQUESTS, cluster, PreemptionRequest.newBuilder()
        .setRequestId(requestId).setCluster(cluster).setPreemptorJobId(id)
        .setPreemptorClass(e.getWorkloadClass()).setShape(shape)
        .setTrigger(PreemptionTrigger.UNPLACEABLE).setLedgerVersion(version)
        .setRequestedAt(now).build());
    String[] open = {requestId, Long.toString(version), "OPEN"};
    pending.put(id, open);
    fx.put(PENDING, id, bytes(String.join("\t", open)));
    List<TraceEntry> trace = new ArrayList<>(d.trace());
    trace.add(new TraceEntry(id, "W4 preemption right", "requested", "unplaceable ("
        + d.reason() + ") and the right to preempt was granted by quota; request " + requestId));
    announced.add(id);
    decision(id, PlacementOutcome.PREEMPTION_REQUESTED, List.of(), null, false, 0, trace);
  }

  // =================================================================== ledger changes

  private void bind(JobRequest job, List<GpuAssignment> assignments, TopologyLevel level,
      boolean crossDomain, double score, List<TraceEntry> trace) {
    String id = job.jobId();
    allocate(new Allocation(job, assignments));
    startedAt.put(id, now);
    boundAt.put(id, version);
    dequeue(id, true);
    announced.remove(id);
    defragTried.remove(id);
    if (pending.remove(id) != null) {
      fx.put(PENDING, id, null);
    }
    byte[] b = decision(id, PlacementOutcome.PLACED, assignments, level, crossDomain, score, trace);
    fx.put(RUNNING, id, b);
    putVersion();
  }

  private void release(String id, String why) {
    release(id, why, null);
  }

  /**
   * Frees the job's GPUs. {@code ev} (or null): the reservation-start / idle-reclaim eviction the
   * job stops for; the trace then names the decision, and GPUs of a starting reservation stay the
   * service's (the reservation's rule: from its start only the service may use them).
   */
  private void release(String id, String why, String[] ev) {
    if (snap == null) {
      return;
    }
    Allocation a = snap.allocations().get(id);
    if (a == null) {
      return;
    }
    String rule = "ledger release";
    String where = String.format(Locale.ROOT, "%.2f", a.gpuShare()) + " GPU(s) back to the pool";
    if (ev != null && RESERVATION_START.equals(ev[1])) {
      Reservation r = serviceReservations.get(ev[2]);
      double kept = r == null || !r.activeAt(now) ? 0 : a.assignments().stream()
          .filter(g -> r.gpus().contains(g.gpu())).mapToDouble(GpuAssignment::share).sum();
      rule = "F2 reservation start";
      why += " (evicted by " + ev[0] + ")";
      where = String.format(Locale.ROOT, "%.2f", kept) + " GPU(s) held for service " + ev[3]
          + " (reservation " + ev[2] + "), " + String.format(Locale.ROOT, "%.2f",
          a.gpuShare() - kept) + " back to the pool";
    } else if (ev != null) {
      rule = "Q7 idle reclaim";
      why += " (reclaimed by " + ev[0] + "; not queued again)";
    }
    mirror.release(id);
    commit();
    startedAt.remove(id);
    boundAt.remove(id);
    fx.put(RUNNING, id, null);
    putVersion();
    decision(id, PlacementOutcome.RELEASED, a.assignments(), null, false, 0,
        List.of(new TraceEntry(id, rule, "released", why + ": " + where)));
  }

  /** Forgets that {@code id} is being evicted; returns what it was evicted for, or null. */
  private String[] stopEvicting(String id) {
    String[] ev = evicting.remove(id);
    if (ev != null) {
      fx.put(EVICTING, id, null);
    }
    return ev;
  }

  private void forget(String id) {
    dequeue(id, true);
    announced.remove(id);
    defragTried.remove(id);
    if (submissions.remove(id) != null) {
      fx.put(JOB, id, null);
    }
    if (verdicts.remove(id) != null) {
      fx.put(VERDICT, id, null);
    }
    if (boosts.remove(id) != null) {
      fx.put(BOOST, id, null);
    }
    if (pending.remove(id) != null) {
      fx.put(PENDING, id, null);
    }
    stopEvicting(id);
    Hold own = holds.get("hold:" + id);
    if (own != null) {
      dropHold(own);
    }
  }

  private void addHold(Hold h) {
    holds.put(h.id(), h);
    mirror.reserve(h.reservation());
    commit();
    fx.put(HOLD, h.id(), h.encode());
    putVersion();
  }

  private void dropHold(Hold h) {
    holds.remove(h.id());
    rebuildSnapshot(version + 1, runningAssignments()); // the builder cannot drop a reservation
    fx.put(HOLD, h.id(), null);
    putVersion();
  }

  /** The wait is over: free the hold and bind its job to the held GPUs. */
  private void resolve(Hold h, String why) {
    dropHold(h);
    String id = h.holder();
    if (id.isEmpty() || !submissions.containsKey(id) || startedAt.containsKey(id)) {
      return;
    }
    JobRequest job = request(id);
    try {
      snap.withAllocation(new Allocation(job, h.assignments()));
    } catch (IllegalArgumentException e) {
      enqueue(id); // the held GPUs are not free after all: queue normally
      return;
    }
    TopologyLevel level = levelOf(h.assignments());
    bind(job, h.assignments(), level, level.crossesSwitchDomain(),
        Math.pow(1 - policy.placement().crossSwitchSlowdown(), level.switchTiersCrossed()),
        List.of(new TraceEntry(h.id(), "hold resolved", "bound", why + "; the GPUs held by "
            + h.decisionId() + " are now the job's")));
  }

  /**
   * F3 early release: the forecaster gives back {@code gpus} of the service's reserved GPUs (its
   * release event names the service and a count, not the reservation); the core picks which
   * ({@link EarlyRelease}), and from now on anyone may use them.
   */
  private void releaseEarly(CapacityReservation c) {
    EarlyRelease.Result r = EarlyRelease.release(snap, c.getServiceId(),
        (int) Math.ceil(c.getGpus() - 1e-9), now);
    if (r.changed().isEmpty()) {
      return;
    }
    for (Reservation x : r.changed()) {
      if (x.gpus().isEmpty()) {
        serviceReservations.remove(x.id());
        fx.put(RESERVATION, x.id(), null);
      } else {
        serviceReservations.put(x.id(), x);
        fx.put(RESERVATION, x.id(), Hold.encodeReservation(x));
      }
    }
    rebuildSnapshot(version + 1, runningAssignments()); // the builder cannot shrink a reservation
    putVersion();
  }

  private void dropReservation(String rid) {
    if (pending.remove(RESERVATION_SUBJECT + rid) != null) {
      fx.put(PENDING, RESERVATION_SUBJECT + rid, null);
    }
    if (serviceReservations.remove(rid) != null) {
      rebuildSnapshot(version + 1, runningAssignments());
      fx.put(RESERVATION, rid, null);
      putVersion();
    }
  }

  /**
   * GPUs for a service reservation (F2): idle unreserved GPUs on the fullest nodes first (small
   * inference instances pack there and whole nodes stay free for gangs), then GPUs held only by
   * preemptible work, which the reservation lets run until it starts.
   */
  private TreeSet<GpuRef> pickGpus(int n) {
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
          if (snap.reservationsOn(i, g).stream().anyMatch(r -> r.activeAt(now))) {
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

  // =================================================================== defragmentation

  private boolean passiveDefrag(QueuedJob q) {
    DefragPlan plan = passive.plan(now, snap, q.job(), slot(), migrations);
    if (plan.isEmpty() || plan.unlocked() == null || !plan.unlocked().placed()) {
      return false;
    }
    String id = q.job().jobId();
    String decisionId = cluster + "/defrag/" + id + "/v" + version;
    Set<String> migrants = migrate(plan, decisionId, "passive");
    Hold hold = new Hold("hold:" + id, Hold.Kind.DEFRAG_JOB, id, decisionId, migrants,
        plan.unlocked().assignments());
    addHold(hold);
    dequeue(id, true);
    List<TraceEntry> trace = new ArrayList<>(plan.trace());
    trace.add(new TraceEntry(id, "T3 passive defrag", "held", "GPUs " + gpus(hold.assignments())
        + " held until " + migrants + " run at their targets"));
    decision(id, PlacementOutcome.QUEUED, List.of(), null, false, 0, trace);
    return true;
  }

  private void activeDefrag() {
    SlotClass slot = slot();
    if (slot == SlotClass.PEAK || !policy.defrag().activeSlots().contains(slot)) {
      return;
    }
    if (lastActiveDefrag != null && now.isBefore(lastActiveDefrag.plus(policy.activeDefragInterval()))) {
      return;
    }
    lastActiveDefrag = now;
    fx.put(META, "lastActiveDefrag", bytes(Long.toString(now.toEpochMilli())));
    DefragPlan plan = active.plan(now, snap, slot, demand(), migrations);
    if (!plan.isEmpty()) {
      migrate(plan, cluster + "/defrag/active/v" + version, "active");
    }
  }

  /** Applies a plan's moves to the ledger, holds each source until the migrant has moved. */
  private Set<String> migrate(DefragPlan plan, String decisionId, String kind) {
    Set<String> migrants = new TreeSet<>();
    for (Migration m : plan.migrations()) {
      Allocation a = snap.allocations().get(m.jobId());
      mirror.release(m.jobId());
      allocate(new Allocation(a.job(), m.to()));
      migrants.add(m.jobId());
      String holdId = "migrate:" + m.jobId();
      Hold prior = holds.get(holdId);
      List<GpuAssignment> source = new ArrayList<>(m.from());
      if (prior != null) {
        source.addAll(prior.assignments());
        dropHold(prior);
      }
      addHold(new Hold(holdId, Hold.Kind.MIGRATION, "", decisionId, Set.of(m.jobId()), source));
      evict(decisionId + "/" + m.jobId(), m.jobId(), EvictionKind.MIGRATE, decisionId, m.to(),
          m.reason());
      byte[] b = decision(m.jobId(), PlacementOutcome.MIGRATED, m.to(), levelOf(m.to()),
          levelOf(m.to()).crossesSwitchDomain(), 0, List.of(new TraceEntry(m.jobId(),
              "T3 " + kind + " defrag", "migrate", m.reason())));
      fx.put(RUNNING, m.jobId(), b);
      boundAt.put(m.jobId(), version);
      migrations.add(new PastMigration(now, m.gpuShare()));
      meters.migration(cluster, kind);
    }
    Instant from = now.minus(policy.defrag().period());
    migrations.removeIf(p -> !p.at().isAfter(from));
    StringBuilder s = new StringBuilder();
    migrations.forEach(p -> s.append(p.at().toEpochMilli()).append(':').append(p.gpuShare())
        .append(';'));
    fx.put(META, "migrations", bytes(s.toString()));
    putVersion();
    return migrants;
  }

  /** The slot class now: a forecast's slot containing now, else the configured default (F4). */
  SlotClass slot() {
    Map.Entry<Long, Object[]> e = forecasts.floorEntry(now.toEpochMilli());
    if (e != null && ((Instant) e.getValue()[0]).isAfter(now)) {
      return (SlotClass) e.getValue()[1];
    }
    return policy.defaultSlotClass();
  }

  private DemandHistogram demand() {
    List<JobRequest> jobs = new ArrayList<>();
    queued.values().forEach(q -> jobs.add(q.job()));
    snap.allocations().values().forEach(a -> jobs.add(a.job()));
    int max = snap.topology().maxGpusPerNode();
    return jobs.isEmpty() ? DemandHistogram.wholeNode(max) : DemandHistogram.of(jobs, max);
  }

  // =================================================================== queue positions

  /** Publishes the position of jobs queued by this record (the others follow on the next tick). */
  private void publishNew() {
    if (newlyQueued.isEmpty()) {
      return;
    }
    Estimates est = null;
    for (String id : newlyQueued) {
      QueuedJob q = queued.get(id);
      if (q == null || published.containsKey(id)) {
        continue;
      }
      if (est == null) {
        est = new Estimates();
      }
      int pos = 1;
      double ahead = 0;
      for (QueuedJob o : lanes.get(q.job().workloadClass().lane()).headSet(q, false)) {
        pos++;
        ahead += o.job().gpuDemand();
      }
      publish(q, pos, ahead, est);
    }
    newlyQueued.clear();
  }

  /** Re-publishes every position that changed (clock tick). */
  private void refreshPositions() {
    newlyQueued.clear();
    if (queued.isEmpty()) {
      return;
    }
    Estimates est = new Estimates();
    for (Lane l : LANES) {
      int pos = 0;
      double ahead = 0;
      for (QueuedJob q : lanes.get(l)) {
        pos++;
        publish(q, pos, ahead, est);
        ahead += q.job().gpuDemand();
      }
    }
  }

  private void publish(QueuedJob q, int position, double ahead, Estimates est) {
    String id = q.job().jobId();
    Object[] e = est.estimate(q.job().gpuDemand(), ahead);
    Instant start = (Instant) e[0];
    String stamp = position + "@" + (start == null ? "-" : start.toEpochMilli());
    if (stamp.equals(published.get(id))) {
      return;
    }
    published.put(id, stamp);
    fx.emit(TopicCatalogue.PLACEMENT_QUEUE, id, QueuePosition.newBuilder().setJobId(id)
        .setCluster(cluster).setLane(io.tideline.events.Lane.valueOf(
            q.job().workloadClass().lane().name()))
        .setPosition(position).setEstimatedStart(start).setEstimateBasis((String) e[1])
        .setCompensationBoost(q.boost().levels()).setUpdatedAt(now).build());
  }

  /** Start estimates from the running jobs' declared durations (computed once per use). */
  private final class Estimates {
    final double idle;
    final Instant[] ends;
    final double[] freed;

    Estimates() {
      double free = 0;
      List<Object[]> e = new ArrayList<>();
      if (snap != null) {
        for (int n = 0; n < snap.topology().size(); n++) {
          NodeLedger l = snap.ledger(n);
          free += l.idleGpus();
        }
        for (Allocation a : snap.allocations().values()) {
          Instant s = startedAt.get(a.jobId());
          long dur = a.job().expectedDurationSeconds();
          if (s != null && dur > 0) {
            e.add(new Object[] {s.plusSeconds(dur), a.gpuShare()});
          }
        }
      }
      e.sort(Comparator.comparing(x -> (Instant) x[0]));
      idle = free;
      ends = new Instant[e.size()];
      freed = new double[e.size()];
      double sum = 0;
      for (int i = 0; i < ends.length; i++) {
        ends[i] = (Instant) e.get(i)[0];
        sum += (Double) e.get(i)[1];
        freed[i] = sum;
      }
    }

    Object[] estimate(double demand, double ahead) {
      double need = demand + ahead;
      String numbers = String.format(Locale.ROOT, "needs %.2f GPU(s) (%.2f own + %.2f for the "
          + "jobs ahead in its lane), %.0f idle now", need, demand, ahead, idle);
      if (need <= idle + 1e-9) {
        return new Object[] {now, "enough idle GPUs now; " + numbers
            + "; waiting for shape, topology or reservations"};
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
        return new Object[] {null, "unknown: the running jobs' declared durations free only "
            + String.format(Locale.ROOT, "%.2f", ends.length == 0 ? 0 : freed[ends.length - 1])
            + " GPU(s); " + numbers};
      }
      Instant at = ends[lo].isBefore(now) ? now : ends[lo];
      return new Object[] {at, "declared durations of the " + (lo + 1) + " running job(s) ending "
          + "first free " + String.format(Locale.ROOT, "%.2f", freed[lo]) + " GPU(s); " + numbers};
    }
  }

  // =================================================================== outputs and helpers

  private byte[] decision(String jobId, PlacementOutcome outcome, List<GpuAssignment> assignments,
      TopologyLevel level, boolean crossDomain, double score, List<TraceEntry> trace) {
    meters.decision(cluster, outcome.name());
    List<RuleTraceEntry> t = new ArrayList<>(trace.size());
    for (TraceEntry e : trace) {
      t.add(new RuleTraceEntry(e.subject(), e.rule(), e.outcome(), e.detail()));
    }
    return fx.emit(TopicCatalogue.PLACEMENT_DECISIONS, cluster,
        io.tideline.events.PlacementDecision.newBuilder()
            .setDecisionId(cluster + "/v" + version + "/" + jobId + "/" + outcome)
            .setCluster(cluster).setJobId(jobId).setDecidedAt(now).setOutcome(outcome)
            .setAssignments(toEvents(assignments)).setDomainLevel(domainLevel(level))
            .setCrossDomain(crossDomain).setScore(score).setLedgerVersion(version)
            .setPolicyVersion(policy.policyVersion()).setTrace(t).build());
  }

  private void evict(String evictionId, String jobId, EvictionKind kind, String decisionId,
      List<GpuAssignment> target, String reason) {
    fx.emit(TopicCatalogue.EVICTIONS, jobId, Eviction.newBuilder().setEvictionId(evictionId)
        .setJobId(jobId).setCluster(cluster).setKind(kind).setDecisionId(decisionId)
        .setCheckpointFirst(true).setGraceSeconds(policy.evictionGraceSeconds())
        .setTarget(toEvents(target)).setReason(reason).setIssuedAt(now).build());
  }

  private void gauges(boolean fragmentation) {
    for (Lane l : LANES) {
      meters.queueLength(cluster, l.name(), lanes.get(l).size());
    }
    if (snap != null) {
      meters.ledger(cluster, version, snap.idleGpus());
      if (fragmentation) {
        DemandHistogram demand = demand();
        ClusterFragmentation f = new FragmentationIndex(demand).cluster(snap);
        meters.fragmentation(cluster, f);
        report(f, demand);
      }
    }
  }

  /**
   * T2 as events: publishes the cluster and per-node figures on {@code placement.fragmentation}
   * when {@link FragmentationReporting} says one is due (first, a material move, or the report
   * interval), by event time; the last report is kept in the store so a restart does not repeat it.
   */
  private void report(ClusterFragmentation f, DemandHistogram demand) {
    FragmentationReporting.Trigger trigger = reporting.due(now, f.index(), lastReportAt,
        lastReportIndex);
    if (trigger == null) {
      return;
    }
    List<DemandShape> shapes = new ArrayList<>();
    demand.counts().forEach((gpus, jobs) -> shapes.add(new DemandShape(gpus, jobs)));
    List<NodeFragmentationFigure> figures = new ArrayList<>();
    for (NodeFragmentation n : f.nodes()) {
      if (n.idleGpus() > 0) {
        figures.add(new NodeFragmentationFigure(n.nodeId(), n.idleGpus(), n.strandedGpus(),
            n.index(), n.usedShare()));
      }
    }
    fx.emit(TopicCatalogue.PLACEMENT_FRAGMENTATION, cluster, FragmentationReport.newBuilder()
        .setCluster(cluster).setAt(now).setLedgerVersion(version).setIndex(f.index())
        .setStrandedGpus(f.strandedGpus()).setIdleGpus(f.idleGpus()).setShapes(shapes)
        .setNodes(figures).setTrigger(FragmentationTrigger.valueOf(trigger.name()))
        .setPolicyVersion(policy.policyVersion()).build());
    lastReportAt = now;
    lastReportIndex = f.index();
    fx.put(META, "fragmentationReport", bytes(now.toEpochMilli() + "\t" + f.index()));
  }

  private void advance(Instant t) {
    if (t != null && t.isAfter(now)) {
      now = t;
      fx.put(META, "now", bytes(Long.toString(now.toEpochMilli())));
    }
  }

  private void putVersion() {
    fx.put(META, "version", bytes(Long.toString(version)));
  }

  /** The job as placement sees it: the submission with the verdict's effective rights (W4). */
  private JobRequest request(String id) {
    JobRequest j = JobRequests.fromEvent(submissions.get(id));
    QuotaVerdict v = verdicts.get(id);
    if (v == null) {
      return j;
    }
    return new JobRequest(j.jobId(), j.tenant(), j.team(), j.user(), j.workloadClass(),
        j.critical(), v.getPreemptible(), v.getPreemptionRightGranted(), j.serviceId(),
        j.gpuCount(), j.gpuShare(), j.gangSize(), j.nodes(), j.allowedGpuModels(),
        j.submittedAt(), j.deadline(), j.expectedDurationSeconds(), j.checkpoint(),
        j.dataCacheGb());
  }

  private TopologyLevel levelOf(List<GpuAssignment> as) {
    Topology topo = snap.topology();
    for (TopologyLevel level : TopologyLevel.values()) {
      int d = -1;
      boolean one = true;
      for (GpuAssignment a : as) {
        int x = topo.domainOf(level, topo.indexOf(a.nodeId()));
        if (d >= 0 && x != d) {
          one = false;
          break;
        }
        d = x;
      }
      if (one) {
        return level;
      }
    }
    return TopologyLevel.CLUSTER;
  }

  /** T1 level → contract level; a multi-node NVLink island counts as its access switch. */
  static DomainLevel domainLevel(TopologyLevel level) {
    if (level == null) {
      return DomainLevel.NONE;
    }
    return switch (level) {
      case NODE -> DomainLevel.NODE;
      case NVLINK_ISLAND, ASW -> DomainLevel.ACCESS_SWITCH;
      case PSW -> DomainLevel.AGGREGATION_SWITCH;
      case DSW -> DomainLevel.CORE_SWITCH;
      case CLUSTER -> DomainLevel.CLUSTER;
    };
  }

  static Node toNode(NodeInventory n) {
    var p = n.getSwitchPath();
    String island = n.getLabels() == null ? null : n.getLabels().get("nvlinkIsland");
    return new Node(n.getNodeId(), n.getGpuModel(), n.getGpuCount(),
        island == null || island.isBlank() ? n.getNodeId() : island,
        new SwitchPath(p.getCoreSwitch(), p.getAggregationSwitch(), p.getAccessSwitch()));
  }

  private static boolean sameNode(NodeInventory a, NodeInventory b) {
    return a.getChange() == b.getChange() && toNode(a).equals(toNode(b));
  }

  static List<io.tideline.events.GpuAssignment> toEvents(List<GpuAssignment> as) {
    List<io.tideline.events.GpuAssignment> out = new ArrayList<>(as.size());
    for (GpuAssignment a : as) {
      out.add(new io.tideline.events.GpuAssignment(a.nodeId(), a.gpuIndex(), a.share()));
    }
    return out;
  }

  static List<GpuAssignment> fromEvents(List<io.tideline.events.GpuAssignment> as) {
    List<GpuAssignment> out = new ArrayList<>(as.size());
    for (io.tideline.events.GpuAssignment a : as) {
      out.add(new GpuAssignment(a.getNodeId(), a.getGpuIndex(), a.getShare()));
    }
    return out;
  }

  private static String gpus(List<GpuAssignment> as) {
    List<String> s = new ArrayList<>();
    as.forEach(a -> s.add(a.gpu().toString()));
    return s.toString();
  }

  @SuppressWarnings("unchecked")
  private <T> T decode(byte[] b) {
    return (T) deserializer.deserialize(PlacementTopology.STORE, b);
  }

  private static String str(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
