package io.tideline.simulator;

import io.tideline.core.cluster.Allocation;
import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.GpuRef;
import io.tideline.core.cluster.Node;
import io.tideline.core.cluster.NodeLedger;
import io.tideline.core.cluster.Reservation;
import io.tideline.core.cluster.SwitchPath;
import io.tideline.core.cluster.Topology;
import io.tideline.core.forecast.ActiveReservation;
import io.tideline.core.forecast.ForecastConfig;
import io.tideline.core.forecast.HolidayCalendar;
import io.tideline.core.forecast.ReservationConfig;
import io.tideline.core.forecast.ReservationDecision;
import io.tideline.core.forecast.ReservationEvent;
import io.tideline.core.forecast.ReservationPlanner;
import io.tideline.core.forecast.ServicePosition;
import io.tideline.core.forecast.SlotForecast;
import io.tideline.core.forecast.SlotForecaster;
import io.tideline.core.forecast.SlotHistory;
import io.tideline.core.fragmentation.ActiveDefragPlanner;
import io.tideline.core.fragmentation.DefragConfig;
import io.tideline.core.fragmentation.DefragPlan;
import io.tideline.core.fragmentation.DemandHistogram;
import io.tideline.core.fragmentation.FragmentationIndex;
import io.tideline.core.fragmentation.Migration;
import io.tideline.core.fragmentation.PassiveDefragPlanner;
import io.tideline.core.fragmentation.PastMigration;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import io.tideline.core.placement.CompensationBoost;
import io.tideline.core.placement.FairShare;
import io.tideline.core.placement.PlacementConfig;
import io.tideline.core.placement.PlacementDecision;
import io.tideline.core.placement.Placer;
import io.tideline.core.placement.QueueOrder;
import io.tideline.core.placement.QueuedJob;
import io.tideline.core.placement.QuotaRank;
import io.tideline.core.placement.UnplaceableReason;
import io.tideline.core.preemption.MigrationCost;
import io.tideline.core.preemption.MigrationCostModel;
import io.tideline.core.preemption.PlacementProbe;
import io.tideline.core.preemption.PreemptionConfig;
import io.tideline.core.preemption.PreemptionDecision;
import io.tideline.core.preemption.PreemptionPlanner;
import io.tideline.core.preemption.PreemptionRequest;
import io.tideline.core.preemption.PreemptionScore;
import io.tideline.core.preemption.RunningJob;
import io.tideline.core.preemption.Victim;
import io.tideline.core.quota.QuotaConfig;
import io.tideline.core.quota.SegmentCalculator;
import io.tideline.core.slots.SlotClass;
import io.tideline.core.slots.SlotMap;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The in-process digital twin of one policy: a discrete-event simulation (events ordered by time,
 * then insertion sequence; no wall clock) that plays online demand and offline jobs against the
 * core's real decisions and executes them: starts placed jobs, evicts preemption victims with the
 * cost model's delays, re-queues them, slows cross-domain gangs, applies defrag migrations and
 * forecast reservations. Same scenario and policy, same result.
 *
 * <p>Steps of one event instant: (1) apply every event of that instant (submissions, completions,
 * demand steps, controller ticks); (2) one scheduling pass: online instances first (with one
 * aggregated preemption per short service), then offline jobs in {@link QueueOrder}, with passive
 * defrag on a fragmentation failure and preemption for jobs with the right to it; (3) notify the
 * observer (tests check invariants there).
 */
public final class Simulation {

  private static final String ONLINE_TENANT = "online";
  private static final QuotaRank NO_QUOTA = new QuotaRank(0, "twin: no quota service");
  private static final double SECONDS_PER_HOUR = 3600.0;
  private static final String INFERENCE_PARTITION = "/inference";
  private static final String TRAINING_PARTITION = "/training";
  private static final String FLAT = "flat";

  private enum Kind { DEMAND, TICK, SUBMIT, FINISH, WAKE }

  private record Event(Instant at, long seq, Kind kind, Object payload, long generation) {}

  /** An executed eviction: the cost model's price and what the twin actually charged. */
  public record Eviction(String jobId, Instant at, MigrationCost cost, double lostWallSeconds,
      double workLostSeconds, double restartDelaySeconds) {}

  /** A preemption decision that evicted, for the ineffective-preemption measure. */
  private record PreemptionRecord(Instant at, List<SimJob> preemptors, double costGpuHours,
      double waitAvoidedSeconds, double classWeight) {}

  /** A forecast reservation held in the ledger. */
  private record Hold(String id, int service, int gpus, Instant from, Instant until) {}

  private final SimConfig config;
  private final Policy policy;
  private final Scenario scenario;
  private final Topology physical;
  private final Placer placer;
  private final PreemptionConfig preemptionConfig = PreemptionConfig.DEFAULTS;
  private final PreemptionPlanner planner = new PreemptionPlanner(preemptionConfig);
  private final PreemptionScore score = new PreemptionScore(preemptionConfig);
  private final MigrationCostModel costModel = new MigrationCostModel(preemptionConfig);
  private final DefragConfig defragConfig = DefragConfig.DEFAULTS;
  private final PassiveDefragPlanner passive;
  private final ActiveDefragPlanner active;
  private final ForecastConfig forecastConfig = ForecastConfig.DEFAULTS;
  private final ReservationConfig reservationConfig = ReservationConfig.DEFAULTS;
  private final ReservationPlanner reservationPlanner;
  private final SlotForecaster forecaster = new SlotForecaster(forecastConfig);
  private final SlotHistory[] histories;
  private final HolidayCalendar calendar;
  private final SlotMap slotMap;
  private final double crossSwitchSlowdown = PlacementConfig.DEFAULTS.crossSwitchSlowdown();
  private final double onlineGuarantee;
  private final SortedSet<String> inferencePartition = new TreeSet<>();
  private final List<String> onlineModels;
  private final List<String> offlineModels;

  private ClusterSnapshot snap;
  private final PriorityQueue<Event> events = new PriorityQueue<>(
      Comparator.comparing(Event::at).thenComparingLong(Event::seq));
  private long seq;
  private Instant now;
  private final TreeMap<String, SimJob> jobs = new TreeMap<>();
  private final TreeMap<String, SimJob> running = new TreeMap<>();
  private final TreeMap<String, SimJob> pending = new TreeMap<>();
  private final List<List<SimJob>> serviceInstances = new ArrayList<>();
  private final int[] instanceSeq;
  private final Instant[] lastServiceAttempt;
  private final double[] onlineAllocated;
  private final List<PastMigration> recentMigrations = new ArrayList<>();
  private final List<Hold> holds = new ArrayList<>();
  private long holdSeq;
  private Instant lastPassivePlan;
  private Consumer<Simulation> observer;

  // measurements
  private final List<Double> onlineWaits = new ArrayList<>();
  private final List<Double> bigJobWaits = new ArrayList<>();
  private final List<Double> jcts = new ArrayList<>();
  private final List<Eviction> evictionLog = new ArrayList<>();
  private final List<PreemptionRecord> preemptionRecords = new ArrayList<>();
  private final List<TimelineSample> timeline = new ArrayList<>();
  /** F2 forecasts by slot start: the reservation quantile of each service. */
  private final TreeMap<Instant, double[]> forecastBySlot = new TreeMap<>();
  private final FragmentationIndex wholeNodeFragmentation;
  private final TreeMap<String, Double> tenantReceived = new TreeMap<>();
  private final TreeMap<String, Double> tenantDemanded = new TreeMap<>();
  private final TreeMap<String, Double> tenantUsage = new TreeMap<>();
  private double allocatedGpuSeconds;
  private double usefulGpuSeconds;
  private double offlineRunningSeconds;
  private double allocSum;
  private long allocSamples;
  private double troughSum;
  private long troughSamples;
  private double nightPoolSum;
  private long nightSamples;
  private long multiNodePlacements;
  private long offlinePlacements;
  private long crossDomainPlacements;
  private long migrations;
  private long reservationsIssued;
  private long submitted;
  private long completed;
  private long scaleUps;

  /** A twin of {@code policy} over {@code scenario}; call {@link #run()} once. */
  public Simulation(Scenario scenario, Policy policy) {
    this.scenario = scenario;
    this.config = scenario.config();
    this.policy = policy;
    this.physical = Topology.of(scenario.nodes());
    this.slotMap = scenario.slotMap();
    // 1. the policy's view of the fleet: real, partitioned (hard split) or flattened (blind)
    int inferenceNodes = (int) Math.ceil(scenario.demand().peakTotal()
        * (1 + config.hardSplitHeadroom()) / config.gpusPerNode());
    List<Node> view = new ArrayList<>();
    for (Node n : physical.nodes()) {
      if (policy.hardSplit()) {
        boolean inf = view.size() < inferenceNodes;
        if (inf) {
          inferencePartition.add(n.id());
        }
        view.add(new Node(n.id(), n.gpuModel() + (inf ? INFERENCE_PARTITION : TRAINING_PARTITION),
            n.gpuCount(), n.nvlinkIsland(), n.path()));
      } else if (!policy.topologyAware()) {
        view.add(new Node(n.id(), n.gpuModel(), n.gpuCount(), n.nvlinkIsland(),
            new SwitchPath(FLAT, FLAT, FLAT)));
      } else {
        view.add(n);
      }
    }
    this.snap = ClusterSnapshot.empty(view);
    this.onlineModels = policy.hardSplit()
        ? List.of(config.gpuModel() + INFERENCE_PARTITION) : List.of();
    this.offlineModels = policy.hardSplit()
        ? List.of(config.gpuModel() + TRAINING_PARTITION) : List.of();
    // 2. the core's decision code with its documented defaults
    this.placer = new Placer(PlacementConfig.DEFAULTS);
    this.passive = new PassiveDefragPlanner(defragConfig, placer);
    this.active = new ActiveDefragPlanner(defragConfig, placer);
    this.reservationPlanner = new ReservationPlanner(reservationConfig,
        forecastConfig.grid(config.zone()));
    this.calendar = HolidayCalendar.none(config.zone());
    int services = config.services().size();
    this.histories = new SlotHistory[services];
    SegmentCalculator segments = new SegmentCalculator(new QuotaConfig(
        config.onlineGuaranteeFraction(), QuotaConfig.DEFAULTS.fairShareHalfLife(),
        QuotaConfig.DEFAULTS.preemptionCooldown(), QuotaConfig.DEFAULTS.rulesVersion()));
    double guarantee = 0;
    for (int k = 0; k < services; k++) {
      histories[k] = SlotHistory.empty(config.services().get(k).id(), config.zone(),
          forecastConfig);
      serviceInstances.add(new ArrayList<>());
      double peak = 0;
      for (int s = 0; s < scenario.demand().steps(); s++) {
        peak = Math.max(peak, scenario.demand().gpus(k, s));
      }
      guarantee += segments.onlineGuarantee(peak);
    }
    this.onlineGuarantee = guarantee;
    this.instanceSeq = new int[services];
    this.lastServiceAttempt = new Instant[services];
    this.onlineAllocated = new double[services];
    this.wholeNodeFragmentation = new FragmentationIndex(
        DemandHistogram.wholeNode(config.gpusPerNode()));
  }

  /** Calls {@code observer} after every event instant (tests check invariants there). */
  public Simulation observe(Consumer<Simulation> observer) {
    this.observer = observer;
    return this;
  }

  /** The policy simulated. */
  public Policy policy() {
    return policy;
  }

  /** The current ledger (the policy's view: node ids are the physical ones). */
  public ClusterSnapshot snapshot() {
    return snap;
  }

  /** The current simulated instant. */
  public Instant now() {
    return now;
  }

  /** Node ids of the hard-split inference partition; empty for sharing policies. */
  public SortedSet<String> inferencePartition() {
    return Collections.unmodifiableSortedSet(inferencePartition);
  }

  /** GPU demand of every running job by id (what its allocation must hold, W3). */
  public Map<String, Double> runningDemand() {
    TreeMap<String, Double> out = new TreeMap<>();
    running.forEach((id, j) -> out.put(id, j.gpus()));
    return out;
  }

  /** Whether a running job is online inference. */
  public boolean isOnline(String jobId) {
    SimJob j = jobs.get(jobId);
    return j != null && j.online();
  }

  /** Every eviction executed so far. */
  public List<Eviction> evictions() {
    return Collections.unmodifiableList(evictionLog);
  }

  /** Runs the whole horizon and measures it. */
  public SimResult run() {
    // 1. seed the event queue: demand steps before ticks at equal instants, then submissions
    Instant end = config.end();
    for (int s = 0; s < scenario.demand().steps(); s++) {
      push(config.start().plus(config.demandStep().multipliedBy(s)), Kind.DEMAND, s, 0);
    }
    for (Instant t = config.start(); t.isBefore(end); t = t.plus(config.tick())) {
      push(t, Kind.TICK, null, 0);
    }
    for (JobSpec spec : scenario.jobs()) {
      push(spec.submitAt(), Kind.SUBMIT, spec, 0);
    }
    // 2. the event loop: all events of an instant, then one scheduling pass
    while (!events.isEmpty() && events.peek().at().isBefore(end)) {
      now = events.peek().at();
      while (!events.isEmpty() && events.peek().at().equals(now)) {
        handle(events.poll());
      }
      schedulePass();
      if (observer != null) {
        observer.accept(this);
      }
    }
    // 3. close the books at the horizon
    now = end;
    return result();
  }

  // ------------------------------------------------------------------------------------- events

  private void push(Instant at, Kind kind, Object payload, long generation) {
    events.add(new Event(at, seq++, kind, payload, generation));
  }

  private void handle(Event e) {
    switch (e.kind()) {
      case SUBMIT -> submit((JobSpec) e.payload());
      case FINISH -> finish((SimJob) e.payload(), e.generation());
      case DEMAND -> demandStep((Integer) e.payload());
      case TICK -> tick();
      case WAKE -> { } // a cooldown ended: the pass after this instant retries the job
    }
  }

  private void submit(JobSpec spec) {
    JobRequest req = spec.toRequest(spec.gpuModel().isEmpty() ? offlineModels
        : policy.hardSplit() ? List.of(spec.gpuModel() + TRAINING_PARTITION)
        : List.of(spec.gpuModel()));
    SimJob j = new SimJob(req, spec, -1, spec.submitAt());
    jobs.put(j.id(), j);
    pending.put(j.id(), j);
    submitted++;
    tenantDemanded.merge(spec.tenant(), spec.gpuDemand() * spec.durationSeconds()
        / SECONDS_PER_HOUR, Double::sum);
  }

  private void finish(SimJob j, long generation) {
    if (j.state != SimJob.State.RUNNING || j.generation != generation) {
      return;
    }
    endStint(j, j.work() - j.workAtStart);
    snap = snap.withoutJobs(Set.of(j.id()));
    running.remove(j.id());
    j.state = SimJob.State.DONE;
    j.finishedAt = now;
    completed++;
    jcts.add(SimJob.seconds(j.submittedAt, now) / SECONDS_PER_HOUR);
  }

  /** W2: scale every service to its demand: new instances queue, surplus ones stop. */
  private void demandStep(int step) {
    Set<String> stopped = new TreeSet<>();
    for (int k = 0; k < config.services().size(); k++) {
      OnlineService svc = config.services().get(k);
      histories[k].record(now, scenario.demand().gpus(k, step));
      int target = scenario.demand().instances(k, step);
      // scale down only to the highest need of the stabilisation window (autoscaler hysteresis)
      int window = (int) (config.scaleDownStabilisation().toSeconds()
          / config.demandStep().toSeconds());
      int keep = target;
      for (int s = Math.max(0, step - window); s < step; s++) {
        keep = Math.max(keep, scenario.demand().instances(k, s));
      }
      List<SimJob> live = serviceInstances.get(k);
      // 1. scale up: queue new instances
      while (live.size() < target) {
        String id = String.format("%s-%06d", svc.id(), instanceSeq[k]++);
        JobRequest req = new JobRequest(id, ONLINE_TENANT, ONLINE_TENANT, svc.id() + "-owner",
            WorkloadClass.ONLINE_INFERENCE, false, false, true, svc.id(), svc.gpusPerInstance(),
            svc.gpuShare(), 1, 0, onlineModels, now, null, 0, null, 0);
        SimJob j = new SimJob(req, null, k, now);
        jobs.put(id, j);
        pending.put(id, j);
        live.add(j);
        scaleUps++;
      }
      // 2. scale down: newest first, queued ones before running ones
      int surplus = live.size() - keep;
      for (int i = live.size() - 1; i >= 0 && surplus > 0; i--) {
        SimJob j = live.get(i);
        if (j.state == SimJob.State.PENDING) {
          j.state = SimJob.State.CANCELLED;
          pending.remove(j.id());
          live.remove(i);
          surplus--;
        }
      }
      for (int i = live.size() - 1; i >= 0 && surplus > 0; i--) {
        SimJob j = live.remove(i);
        endStint(j, Math.max(0, SimJob.seconds(j.productiveFrom(), now)));
        onlineAllocated[k] -= j.gpus();
        running.remove(j.id());
        j.state = SimJob.State.DONE;
        stopped.add(j.id());
        surplus--;
      }
    }
    if (!stopped.isEmpty()) {
      snap = snap.withoutJobs(stopped);
    }
  }

  private void tick() {
    // 1. forecast reservations (F2/F3)
    if (policy.forecastReservations()) {
      expireHolds();
      for (int k = 0; k < config.services().size(); k++) {
        reserve(k);
      }
    }
    // 2. active defragmentation in trough slots (T3/T4)
    SlotClass slot = slotMap.classAt(now);
    long sinceStart = Duration.between(config.start(), now).toSeconds();
    if (policy.defrag() && sinceStart % config.activeDefragEvery().toSeconds() == 0
        && defragConfig.activeSlots().contains(slot)) {
      List<JobRequest> shapes = new ArrayList<>();
      pending.values().forEach(j -> {
        if (!j.online()) {
          shapes.add(j.request);
        }
      });
      DemandHistogram demand = shapes.isEmpty()
          ? DemandHistogram.wholeNode(config.gpusPerNode())
          : DemandHistogram.of(shapes, config.gpusPerNode());
      if (migrationBudgetLeft() >= 1) {
        applyMigrations(active.plan(now, snap, slot, demand, recentMigrations()));
      }
    }
    // 3. samples: allocation, trough utilisation, night shared-pool occupancy
    double occupancy = snap.occupancy();
    allocSum += occupancy;
    allocSamples++;
    if (slot == SlotClass.TROUGH || slot == SlotClass.DEEP_TROUGH) {
      troughSum += occupancy;
      troughSamples++;
    }
    LocalTime time = now.atZone(config.zone()).toLocalTime();
    if (!time.isBefore(config.nightStart()) && time.isBefore(config.nightEnd())) {
      double used = occupancy * config.fleetGpus();
      double online = 0;
      for (double a : onlineAllocated) {
        online += a;
      }
      double pool = config.fleetGpus() - onlineGuarantee;
      double poolUsed = used - Math.min(online, onlineGuarantee);
      nightPoolSum += pool <= 0 ? 0 : Math.max(0, Math.min(1, poolUsed / pool));
      nightSamples++;
    }
    sample(occupancy);
  }

  /** 4. the chart sample of this tick (see {@link TimelineSample}). */
  private void sample(double occupancy) {
    int step = scenario.demand().stepOf(now);
    double demand = 0;
    double online = 0;
    for (int k = 0; k < onlineAllocated.length; k++) {
      demand += scenario.demand().gpus(k, step);
      online += onlineAllocated[k];
    }
    int reservedIdle = 0;
    for (Hold h : holds) {
      reservedIdle += idleReservedGpus(h);
    }
    double forecast = Double.NaN;
    Map.Entry<Instant, double[]> f = forecastBySlot.floorEntry(now);
    if (f != null && now.isBefore(f.getKey().plus(config.demandStep()))) {
      forecast = 0;
      for (double v : f.getValue()) {
        forecast += Double.isNaN(v) ? 0 : v;
      }
    }
    int idle = snap.idleGpus();
    double fragmentation = idle == 0 ? 0
        : Math.min(1, wholeNodeFragmentation.strandedGpus(snap) / idle);
    int queued = 0;
    for (SimJob j : pending.values()) {
      if (!j.online()) {
        queued++;
      }
    }
    double used = occupancy * config.fleetGpus();
    timeline.add(new TimelineSample(now, demand, online, reservedIdle,
        Math.max(0, used - online), forecast, occupancy, fragmentation, queued));
  }

  // --------------------------------------------------------------------- forecast reservations

  private void expireHolds() {
    for (int i = holds.size() - 1; i >= 0; i--) {
      if (!holds.get(i).until().isAfter(now)) {
        snap = snap.withoutReservation(holds.remove(i).id());
      }
    }
  }

  /** F2/F3 for one service: ask the core's planner, execute its events. */
  private void reserve(int k) {
    OnlineService svc = config.services().get(k);
    var grid = forecastConfig.grid(config.zone());
    Instant slotStart = now.plus(reservationConfig.leadTime());
    Hold current = null;
    for (Hold h : holds) {
      if (h.service() == k) {
        current = h;
      }
    }
    boolean reserveDue = grid.isSlotStart(slotStart);
    boolean releaseDue = current != null
        && current.until().minus(reservationConfig.releaseEarly()).equals(now);
    if (!reserveDue && !releaseDue) {
      return;
    }
    // 1. position: GPUs held by instances and unused reserved GPUs, current demand, pool
    int idleReserved = current == null ? 0 : idleReservedGpus(current);
    int held = (int) Math.ceil(onlineAllocated[k] - 1e-9);
    for (Hold h : holds) {
      if (h.service() == k) {
        held += idleReservedGpus(h);
      }
    }
    int step = scenario.demand().stepOf(now);
    ServicePosition position = new ServicePosition(svc.id(), held,
        (int) Math.ceil(scenario.demand().gpus(k, step) - 1e-9), 0, snap.idleGpus(),
        current == null ? null : new ActiveReservation(current.gpus(), current.from(),
            current.until(), current.gpus() - idleReserved));
    SlotForecast next = forecaster.forecast(histories[k],
        reserveDue ? slotStart : grid.slotEndOf(now), calendar);
    if (reserveDue) {
      forecastBySlot.computeIfAbsent(slotStart, t -> {
        double[] none = new double[config.services().size()];
        java.util.Arrays.fill(none, Double.NaN);
        return none;
      })[k] = next.value(reservationConfig.quantile());
    }
    ReservationDecision decision = reservationPlanner.plan(now, next, position);
    // 2. execute: hold idle GPUs (evicting for the shortfall), release early, over-issue is
    //    implicit (placement in the twin is not quota-capped)
    for (ReservationEvent ev : decision.events()) {
      if (ev.type() == ReservationEvent.Type.RESERVE) {
        hold(k, ev);
      } else if (ev.type() == ReservationEvent.Type.RELEASE && current != null) {
        snap = snap.withoutReservation(current.id());
        holds.remove(current);
      }
    }
  }

  private void hold(int k, ReservationEvent ev) {
    OnlineService svc = config.services().get(k);
    // Only idle GPUs are held: the reservation keeps new offline work off the capacity the rise
    // will need (F2); a shortfall is met at the rise by reactive preemption. (Evicting ahead for
    // the shortfall was tried: with p90 forecasts and the F3 early release it evicted training
    // every slot and cost more than it saved.)
    TreeSet<GpuRef> gpus = pickIdleGpus(ev.gpus());
    if (gpus.isEmpty()) {
      return;
    }
    String id = String.format("res-%s-%06d", svc.id(), holdSeq++);
    // The twin holds reserved GPUs for the service from issue: lending them to preemptible work
    // in the lead window (F2) is not simulated.
    snap = snap.withReservation(new Reservation(id, svc.id(), gpus, now, null));
    holds.add(new Hold(id, k, gpus.size(), ev.from(), ev.until()));
    reservationsIssued++;
  }

  /** Idle, unreserved GPUs: on the fullest nodes first, so whole nodes stay free for gangs. */
  private TreeSet<GpuRef> pickIdleGpus(int count) {
    Topology topo = snap.topology();
    List<Integer> order = new ArrayList<>();
    for (int n = 0; n < topo.size(); n++) {
      if (snap.ledger(n).idleGpus() > 0) {
        order.add(n);
      }
    }
    order.sort(Comparator.<Integer>comparingInt(n -> snap.ledger(n).idleGpus())
        .thenComparingInt(n -> n));
    TreeSet<GpuRef> out = new TreeSet<>();
    for (int n : order) {
      NodeLedger l = snap.ledger(n);
      for (int g = 0; g < l.gpuCount() && out.size() < count; g++) {
        if (l.isIdle(g) && snap.reservationsOn(n, g).isEmpty()) {
          out.add(new GpuRef(topo.node(n).id(), g));
        }
      }
      if (out.size() == count) {
        break;
      }
    }
    return out;
  }

  private int idleReservedGpus(Hold h) {
    Reservation r = snap.reservations().get(h.id());
    int idle = 0;
    for (GpuRef g : r.gpus()) {
      if (snap.ledger(g.nodeId()).isIdle(g.gpuIndex())) {
        idle++;
      }
    }
    return idle;
  }

  // ------------------------------------------------------------------------- scheduling pass

  private void schedulePass() {
    if (pending.isEmpty()) {
      return;
    }
    List<QueuedJob> order = new ArrayList<>(pending.size());
    for (SimJob j : pending.values()) {
      order.add(new QueuedJob(j.request, NO_QUOTA,
          new FairShare(tenantUsage.getOrDefault(j.request.tenant(), 0.0)),
          new CompensationBoost(j.boost)));
    }
    order.sort(QueueOrder.INSTANCE);
    // 1. online instances first; remember which services are short
    boolean[] short_ = new boolean[config.services().size()];
    List<SimJob> offline = new ArrayList<>();
    for (QueuedJob q : order) {
      SimJob j = jobs.get(q.job().jobId());
      if (!j.online()) {
        offline.add(j);
        continue;
      }
      if (short_[j.service]) {
        continue; // same shape as an instance that just failed: it fails too
      }
      PlacementDecision d = placer.decide(now, snap, j.request);
      if (d.placed()) {
        start(j, d, 0);
      } else {
        short_[j.service] = true;
      }
    }
    // 2. one aggregated preemption per short service
    for (int k = 0; k < short_.length; k++) {
      if (short_[k] && policy.preemption() != Policy.Preemption.NONE
          && due(lastServiceAttempt[k])) {
        lastServiceAttempt[k] = now;
        preemptForService(k);
      }
    }
    // 3. offline jobs in queue order: place, else passive defrag, else preemption
    int idle = snap.idleGpus();
    int preemptBudget = config.maxPreemptionsPerPass();
    int defragBudget = config.maxDefragPlansPerPass();
    Failures failed = new Failures();
    for (SimJob j : offline) {
      if (j.notBefore != null && now.isBefore(j.notBefore)) {
        continue;
      }
      boolean mayPreempt = mayPreempt(j) && preemptBudget > 0 && due(j.lastPreemptAttempt);
      if (!mayPreempt && (failed.dominates(j.request)
          || (!j.request.fractional() && j.request.gpuCount() > idle))) {
        continue;
      }
      PlacementDecision d = placer.decide(now, snap, j.request);
      if (d.placed()) {
        start(j, d, 0);
        idle = snap.idleGpus();
        continue;
      }
      failed.add(j.request);
      if (d.reason() == UnplaceableReason.FRAGMENTED && policy.defrag() && defragBudget > 0
          && due(j.lastDefragAttempt) && passiveDue() && migrationBudgetLeft() >= 1) {
        defragBudget--;
        j.lastDefragAttempt = now;
        lastPassivePlan = now;
        DefragPlan plan = passive.plan(now, snap, j.request, slotMap.classAt(now),
            recentMigrations());
        if (!plan.isEmpty()) {
          applyMigrations(plan);
          failed.clear();
          d = placer.decide(now, snap, j.request);
          if (d.placed()) {
            start(j, d, 0);
            idle = snap.idleGpus();
            continue;
          }
        }
      }
      if (mayPreempt) {
        preemptBudget--;
        j.lastPreemptAttempt = now;
        if (preempt(j.request, List.of(j), false, expectedWaitSeconds(j))) {
          idle = snap.idleGpus();
          failed.clear();
        }
      }
    }
  }

  /**
   * Shapes that failed to place in this pass. Placement in a pass only takes GPUs, so a job that
   * needs at least as much per node and in total, on the same models, fails too.
   */
  private static final class Failures {
    private final List<int[]> shapes = new ArrayList<>();
    private final List<List<String>> models = new ArrayList<>();

    void add(JobRequest r) {
      if (!r.fractional()) {
        shapes.add(new int[] {DemandHistogram.shapeOf(r), r.gpuCount()});
        models.add(r.allowedGpuModels());
      }
    }

    boolean dominates(JobRequest r) {
      if (r.fractional()) {
        return false;
      }
      int piece = DemandHistogram.shapeOf(r);
      for (int i = 0; i < shapes.size(); i++) {
        if (piece >= shapes.get(i)[0] && r.gpuCount() >= shapes.get(i)[1]
            && r.allowedGpuModels().equals(models.get(i))) {
          return true;
        }
      }
      return false;
    }

    void clear() {
      shapes.clear();
      models.clear();
    }
  }

  private boolean passiveDue() {
    return lastPassivePlan == null
        || !now.isBefore(lastPassivePlan.plus(config.passiveDefragInterval()));
  }

  /** T4 GPU share still migratable in the window (the planners re-check it themselves). */
  private double migrationBudgetLeft() {
    double used = 0;
    for (PastMigration m : recentMigrations()) {
      used += m.gpuShare();
    }
    return defragConfig.maxMigratedFraction() * config.fleetGpus() - used;
  }

  private boolean due(Instant last) {
    return last == null || !now.isBefore(last.plus(config.preemptionRetry()));
  }

  private boolean mayPreempt(SimJob j) {
    return switch (policy.preemption()) {
      case NONE -> false;
      case PLANNER -> j.request.preemptionRight();
      case NAIVE -> true;
    };
  }

  /** Starts a placed job; {@code delaySeconds} is spent before it does useful work. */
  private void start(SimJob j, PlacementDecision d, double delaySeconds) {
    snap = Placer.apply(snap, j.request, d);
    pending.remove(j.id());
    running.put(j.id(), j);
    j.state = SimJob.State.RUNNING;
    j.startedAt = now;
    j.startupSeconds = j.owedRestartSeconds + delaySeconds;
    j.owedRestartSeconds = 0;
    j.nodesSpanned = d.nodeIds().size();
    int tiers = tiersCrossed(d.assignments());
    j.speed = j.online() ? 1.0 : Math.pow(1 - crossSwitchSlowdown, tiers);
    j.stints.add(new Instant[] {now, null});
    if (j.firstStartAt == null) {
      j.firstStartAt = now;
      if (j.online()) {
        onlineWaits.add(SimJob.seconds(j.submittedAt, now) + delaySeconds);
      } else if (j.request.gpuCount() >= config.gpusPerNode()) {
        bigJobWaits.add(SimJob.seconds(j.submittedAt, now) / 60.0);
      }
    }
    if (j.online()) {
      onlineAllocated[j.service] += j.gpus();
    } else {
      offlinePlacements++;
      if (j.nodesSpanned > 1) {
        multiNodePlacements++;
        if (tiers > 0) {
          crossDomainPlacements++;
        }
      }
      push(j.expectedEnd(), Kind.FINISH, j, j.generation);
    }
  }

  /** Switch tiers above the access switch the placement spans, on the physical topology (T1). */
  private int tiersCrossed(List<GpuAssignment> assignments) {
    Node first = null;
    int tiers = 0;
    for (GpuAssignment a : assignments) {
      Node n = physical.node(physical.indexOf(a.nodeId()));
      if (first == null) {
        first = n;
        continue;
      }
      SwitchPath p = n.path();
      SwitchPath q = first.path();
      int t = p.aswDomain().equals(q.aswDomain()) ? 0 : p.pswDomain().equals(q.pswDomain()) ? 1
          : p.dswDomain().equals(q.dswDomain()) ? 2 : 3;
      tiers = Math.max(tiers, t);
    }
    return tiers;
  }

  /** Closes the current stint: GPU-time allocated, useful work kept, tenant accounting. */
  private void endStint(SimJob j, double keptWorkDelta) {
    double wall = SimJob.seconds(j.startedAt, now);
    double gpus = j.gpus();
    allocatedGpuSeconds += wall * gpus;
    usefulGpuSeconds += Math.max(0, keptWorkDelta) * gpus;
    j.gpuHoursConsumed += wall * gpus / SECONDS_PER_HOUR;
    j.stints.get(j.stints.size() - 1)[1] = now;
    if (!j.online()) {
      offlineRunningSeconds += wall;
      tenantReceived.merge(j.request.tenant(), Math.max(0, keptWorkDelta) * gpus
          / SECONDS_PER_HOUR, Double::sum);
      tenantUsage.merge(j.request.tenant(), wall * gpus / SECONDS_PER_HOUR
          / config.fleetGpus(), Double::sum);
    }
  }

  // ------------------------------------------------------------------------------ preemption

  /** The shape an online shortfall of {@code gpus} GPUs asks the probe about. */
  private JobRequest serviceProbe(int k, int gpus, String why) {
    OnlineService svc = config.services().get(k);
    int workers = svc.gpusPerInstance() > 1 ? Math.max(1, gpus / svc.gpusPerInstance()) : gpus;
    int whole = svc.gpusPerInstance() > 1 ? workers * svc.gpusPerInstance() : gpus;
    return new JobRequest(svc.id() + "-" + why + "-" + now.getEpochSecond(), ONLINE_TENANT,
        ONLINE_TENANT, svc.id() + "-owner", WorkloadClass.ONLINE_INFERENCE, false, false, true,
        svc.id(), whole, 1.0, workers, 0, onlineModels, now, null, 0, null, 0);
  }

  private void preemptForService(int k) {
    double short_ = 0;
    List<SimJob> waiting = new ArrayList<>();
    for (SimJob j : serviceInstances.get(k)) {
      if (j.state == SimJob.State.PENDING) {
        short_ += j.gpus();
        waiting.add(j);
      }
    }
    if (waiting.isEmpty()) {
      return;
    }
    JobRequest probe = serviceProbe(k, (int) Math.ceil(short_ - 1e-9), "scaleup");
    preempt(probe, waiting, true, config.onlineWaitEstimate().toSeconds());
  }

  /**
   * One preemption for {@code probe} (the preemptor's shape); on success the victims are evicted
   * and {@code preemptors} placed, each starting after the victims' checkpoint write.
   */
  private boolean preempt(JobRequest probe, List<SimJob> preemptors, boolean online,
      long waitSeconds) {
    List<SimJob> victims;
    List<MigrationCost> costs = new ArrayList<>();
    double weight;
    if (policy.preemption() == Policy.Preemption.PLANNER) {
      // 1a. the core's planner, probing feasibility with the core's placer
      PreemptionRequest req = new PreemptionRequest(probe.jobId(), probe.tenant(), probe.user(),
          probe.workloadClass(), probe.critical(), probe.preemptionRight(),
          (int) Math.ceil(probe.gpuDemand() - 1e-9), 0, waitSeconds, 0,
          preemptors.isEmpty() ? 0 : preemptors.get(0).gpuHoursConsumed);
      if (!online && !probe.preemptionRight()) {
        return false;
      }
      List<RunningJob> candidates = new ArrayList<>();
      for (SimJob r : running.values()) {
        if (!r.online()) {
          candidates.add(runningJob(r));
        }
      }
      PreemptionDecision d = planner.decide(req, candidates,
          new PlacementProbe(placer, snap, probe, now), now, nextTroughStart());
      if (!d.preempts()) {
        return false;
      }
      victims = new ArrayList<>();
      for (Victim v : d.victims()) {
        SimJob victim = running.get(v.jobId());
        victims.add(victim);
        costs.add(v.cost());
        // P3/P6: during its cooldown a victim may run only on guaranteed quota; the twin models
        // no offline guarantee, so it waits the cooldown out
        victim.notBefore = v.compensation().cooldownUntil();
      }
      weight = score.staticPriority(probe.workloadClass(), probe.critical())
          / preemptionConfig.trainingPriority();
    } else {
      // 1b. naive: strictly lower priority, lowest then newest first, shortest feasible prefix
      double mine = score.staticPriority(probe.workloadClass(), probe.critical());
      List<SimJob> cands = new ArrayList<>();
      for (SimJob r : running.values()) {
        if (!r.online() && score.staticPriority(r.request.workloadClass(), r.request.critical())
            < mine) {
          cands.add(r);
        }
      }
      cands.sort(Comparator.<SimJob>comparingDouble(
              r -> score.staticPriority(r.request.workloadClass(), r.request.critical()))
          .thenComparing((SimJob r) -> r.startedAt, Comparator.reverseOrder())
          .thenComparing(SimJob::id));
      int k = shortestFeasiblePrefix(probe, cands);
      if (k <= 0) {
        return false;
      }
      victims = new ArrayList<>(cands.subList(0, k));
      for (SimJob v : victims) {
        costs.add(costModel.cost(runningJob(v), now));
      }
      weight = mine / preemptionConfig.trainingPriority();
    }
    // 2. evict: the victims checkpoint (write), release, re-queue owing restore + rebuild
    double write = 0;
    double cost = 0;
    Set<String> ids = new TreeSet<>();
    for (int i = 0; i < victims.size(); i++) {
      evict(victims.get(i), costs.get(i));
      ids.add(victims.get(i).id());
      write = Math.max(write, costs.get(i).writeSeconds());
      cost += costs.get(i).gpuHours();
    }
    snap = snap.withoutJobs(ids);
    for (SimJob v : victims) {
      if (v.notBefore != null) {
        push(v.notBefore, Kind.WAKE, v, 0);
      }
    }
    // 3. place the preemptors, after the victims' checkpoint write
    List<SimJob> started = new ArrayList<>();
    for (SimJob p : preemptors) {
      PlacementDecision d = placer.decide(now, snap, p.request);
      if (d.placed()) {
        start(p, d, write);
        started.add(p);
      }
    }
    preemptionRecords.add(new PreemptionRecord(now, started, cost, waitSeconds, weight));
    return true;
  }

  private int shortestFeasiblePrefix(JobRequest probe, List<SimJob> cands) {
    if (cands.isEmpty() || placer.decide(now, snap, probe).placed()) {
      return 0;
    }
    if (!feasibleWithout(probe, cands, cands.size())) {
      return 0;
    }
    int lo = 1;
    int hi = cands.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (feasibleWithout(probe, cands, mid)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  private boolean feasibleWithout(JobRequest probe, List<SimJob> cands, int k) {
    Set<String> ids = new LinkedHashSet<>();
    for (int i = 0; i < k; i++) {
      ids.add(cands.get(i).id());
    }
    return placer.decideIfReleased(now, snap, probe, ids).placed();
  }

  /** Executes an eviction (ledger release is the caller's, batched). */
  private void evict(SimJob v, MigrationCost cost) {
    Instant ckpt = v.lastCheckpointAt(now);
    double lostWall = SimJob.seconds(ckpt != null && ckpt.isAfter(v.startedAt) ? ckpt
        : v.startedAt, now);
    double progress = v.progressAt(now);
    double kept = v.keptWorkAt(now);
    endStint(v, kept - v.workAtStart);
    v.workAtStart = kept;
    v.owedRestartSeconds = cost.restoreSeconds() + cost.commRebuildSeconds()
        + cost.cacheWarmupSeconds();
    v.lastPreemptedAt = now;
    v.evictions++;
    v.boost++;
    v.generation++;
    v.state = SimJob.State.PENDING;
    running.remove(v.id());
    pending.put(v.id(), v);
    evictionLog.add(new Eviction(v.id(), now, cost, lostWall, progress - kept,
        v.owedRestartSeconds));
  }

  private RunningJob runningJob(SimJob r) {
    Instant ckpt = r.lastCheckpointAt(now);
    long remaining = (long) Math.ceil(Math.max(0, r.work() - r.progressAt(now)) / r.speed);
    return new RunningJob(r.id(), r.request.tenant(), r.request.user(),
        r.request.workloadClass(), r.request.critical(), r.request.preemptible(), r.gpus(),
        r.nodesSpanned, r.startedAt, r.lastPreemptedAt, ckpt,
        !now.isBefore(r.productiveFrom()), r.request.dataCacheGb(), remaining,
        r.gpuHoursConsumed + SimJob.seconds(r.startedAt, now) * r.gpus() / SECONDS_PER_HOUR,
        r.request.checkpoint());
  }

  /** Placement's wait estimate: until enough running offline jobs end to free the GPUs. */
  private long expectedWaitSeconds(SimJob j) {
    double need = j.gpus() - snap.idleGpus();
    if (need <= 0) {
      return 0;
    }
    // each end computed once (the comparator would recompute it O(n log n) times); ties by id
    record End(Instant at, String id, double gpus) {}
    List<End> byEnd = new ArrayList<>();
    for (SimJob r : running.values()) {
      if (!r.online()) {
        byEnd.add(new End(r.expectedEnd(), r.id(), r.gpus()));
      }
    }
    byEnd.sort(Comparator.comparing(End::at).thenComparing(End::id));
    double freed = 0;
    for (End r : byEnd) {
      freed += r.gpus();
      if (freed >= need) {
        return Math.max(0, Duration.between(now, r.at()).toSeconds());
      }
    }
    return Duration.between(now, config.end()).toSeconds();
  }

  private Instant nextTroughStart() {
    Instant t = slotMap.grid().slotEndOf(now);
    for (int i = 0; i < slotMap.grid().slotsPerDay(); i++) {
      SlotClass c = slotMap.classAt(t);
      if (c == SlotClass.TROUGH || c == SlotClass.DEEP_TROUGH) {
        return t;
      }
      t = t.plus(slotMap.grid().slotLength());
    }
    return null;
  }

  // ---------------------------------------------------------------------------- defragmentation

  private List<PastMigration> recentMigrations() {
    Instant from = now.minus(defragConfig.period());
    recentMigrations.removeIf(m -> !m.at().isAfter(from));
    return recentMigrations;
  }

  /** Executes a plan's moves in order: inference make-before-break, training checkpoint-restart. */
  private void applyMigrations(DefragPlan plan) {
    for (Migration m : plan.migrations()) {
      SimJob j = running.get(m.jobId());
      Allocation a = snap.allocations().get(m.jobId());
      if (j == null || a == null) {
        continue;
      }
      ClusterSnapshot next;
      try {
        next = snap.withoutJobs(Set.of(m.jobId())).withAllocation(new Allocation(a.job(), m.to()));
      } catch (IllegalArgumentException stale) {
        break;
      }
      snap = next;
      recentMigrations.add(new PastMigration(now, m.gpuShare()));
      migrations++;
      if (!j.online()) {
        double progress = j.progressAt(now);
        endStint(j, progress - j.workAtStart);
        j.workAtStart = progress;
        double write = j.request.checkpoint() == null ? 0
            : costModel.writeSeconds(j.request.checkpoint());
        j.startedAt = now;
        j.stints.add(new Instant[] {now, null});
        j.nodesSpanned = (int) m.to().stream().map(GpuAssignment::nodeId).distinct().count();
        j.startupSeconds = write * (1 + preemptionConfig.restoreFactor())
            + costModel.commRebuildSeconds(j.gpus(), j.nodesSpanned);
        j.speed = Math.pow(1 - crossSwitchSlowdown, tiersCrossed(m.to()));
        j.generation++;
        push(j.expectedEnd(), Kind.FINISH, j, j.generation);
      }
    }
  }

  // ---------------------------------------------------------------------------------- results

  private SimResult result() {
    // 1. close running stints at the horizon (work done so far counts as done)
    for (SimJob j : new ArrayList<>(running.values())) {
      endStint(j, j.online() ? Math.max(0, SimJob.seconds(j.productiveFrom(), now))
          : j.progressAt(now) - j.workAtStart);
    }
    for (SimJob j : pending.values()) {
      if (!j.online() && j.firstStartAt == null
          && j.request.gpuCount() >= config.gpusPerNode()) {
        bigJobWaits.add(SimJob.seconds(j.submittedAt, now) / 60.0); // censored at the horizon
      }
    }
    // 2. ineffective preemptions: preemptor not started in the window, or gain < cost
    long ineffective = 0;
    long decisions = 0;
    for (PreemptionRecord r : preemptionRecords) {
      double gain = 0;
      boolean started = false;
      for (SimJob p : r.preemptors()) {
        for (Instant[] s : p.stints) {
          if (!s[0].isBefore(r.at())
              && !s[0].isAfter(r.at().plus(config.ineffectiveWindow()))) {
            started = true;
            double ran = SimJob.seconds(s[0], s[1] == null ? now : s[1]);
            gain += p.gpus() * Math.min(ran, r.waitAvoidedSeconds()) / SECONDS_PER_HOUR
                * r.classWeight();
            break;
          }
        }
      }
      decisions++;
      if (!started || gain < r.costGpuHours()) {
        ineffective++;
      }
    }
    // 3. fairness across tenants: Stats.jainFairness, in the result
    double useful = usefulGpuSeconds / SECONDS_PER_HOUR;
    return new SimResult(policy.name(),
        Stats.median(onlineWaits),
        Stats.quantile(onlineWaits, 0.95),
        nightSamples == 0 ? 0 : nightPoolSum / nightSamples,
        troughSamples == 0 ? 0 : troughSum / troughSamples,
        offlineRunningSeconds == 0 ? 0
            : evictionLog.size() / (offlineRunningSeconds / Duration.ofDays(1).toSeconds()),
        decisions == 0 ? 0 : ineffective / (double) decisions,
        allocatedGpuSeconds == 0 ? 0 : usefulGpuSeconds / allocatedGpuSeconds,
        Stats.median(bigJobWaits),
        allocSamples == 0 ? 0 : allocSum / allocSamples,
        multiNodePlacements == 0 ? 0 : crossDomainPlacements / (double) multiNodePlacements,
        offlinePlacements == 0 ? 0 : crossDomainPlacements / (double) offlinePlacements,
        useful == 0 ? 0 : scenario.fleetCost() / useful,
        Stats.quantile(jcts, 0.5),
        Stats.quantile(jcts, 0.99),
        Stats.jainFairness(tenantDemanded, tenantReceived),
        useful,
        evictionLog.size(),
        preemptionRecords.size(),
        migrations,
        reservationsIssued,
        submitted,
        completed,
        scaleUps,
        timeline);
  }
}
