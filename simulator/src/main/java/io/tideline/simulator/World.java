package io.tideline.simulator;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuRef;
import io.tideline.core.cluster.Node;
import io.tideline.core.cluster.Reservation;
import io.tideline.core.cluster.SwitchPath;
import io.tideline.core.cluster.Topology;
import io.tideline.core.cluster.state.ClusterState;
import io.tideline.core.fragmentation.DemandHistogram;
import io.tideline.core.fragmentation.FragmentationIndex;
import io.tideline.core.kernel.Journal;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import io.tideline.core.placement.PlacementConfig;
import io.tideline.core.preemption.MigrationCostModel;
import io.tideline.core.preemption.PreemptionConfig;
import io.tideline.core.preemption.PreemptionGain;
import io.tideline.core.preemption.kernel.PreemptionKernel;
import io.tideline.core.slots.SlotClass;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.GpuInfo;
import io.tideline.events.GpuSample;
import io.tideline.events.GpuSampleBatch;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LedgerChange;
import io.tideline.events.LifecycleType;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeInventory;
import io.tideline.events.NotificationContacts;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.QuotaConfigDocument;
import io.tideline.events.QuotaConfigFormat;
import io.tideline.events.ResourceRequest;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import io.tideline.events.SlotForecast;
import io.tideline.platform.kernel.ClusterMapping;
import io.tideline.platform.kernel.HostRecord;
import io.tideline.platform.telemetry.SampleBatches;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.validation.InputBounds;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The twin's world: the users, the GPUs and the executor, and what is measured — everything the
 * twin simulates, and nothing it decides. Scheduling is the kernels' (the services' own, in
 * process or through Kafka: the {@link Transport} decides which); the world only plays what a
 * cluster would do with their decisions:
 * <ul>
 *   <li><b>users</b> submit the offline jobs of the scenario and scale the online services to the
 *       demand trace (new instances on {@code jobs.submitted}; surplus ones stop: queued ones are
 *       withdrawn, running ones complete), and publish the fleet and a quota definition;</li>
 *   <li><b>the executor</b> starts a PLACED job (STARTED), stops an evicted one after its
 *       checkpoint write (PREEMPTED: the work up to the checkpoint is kept), moves a migrating one
 *       (RESUMED after restore), reports checkpoints, and completes jobs whose work is done;</li>
 *   <li><b>the GPUs</b> report, per telemetry interval, one {@code gpu.telemetry.batches}
 *       record per node (its GPUs inside), attributed to the job (and service) holding them;</li>
 *   <li><b>measurement</b>: waits, completions, allocation, the tide, evictions, preemption
 *       effectiveness, cost and fairness ({@link SimResult}), from what the executor did — the
 *       placement ledger (folded from {@code placement.ledger} with the kernels' own fold) only for
 *       reserved idle GPUs and fragmentation.</li>
 * </ul>
 * Progress model ({@link TwinJob}): a (re)start spends its restart delay (restore, communication
 * rebuild, cache warm-up after an eviction) before it progresses at its speed (1, slower across
 * switch tiers on the physical topology, T1); an eviction checkpoints first, so the work up to the
 * eviction is kept, at the price of the write time.
 */
public final class World {

  static final String ONLINE = "online";
  static final String TEAM = "ml";
  static final String EXECUTOR = "tideline-twin";
  static final double SECONDS_PER_HOUR = 3600.0;
  /** GPU memory reported for every simulated GPU: an H100 80GB HBM3, as telemetry's default. */
  static final int GPU_MEMORY_MIB = 81559;

  private enum Kind { DEMAND, SUBMIT, FINISH, STOPPED, RESUMED, CHECKPOINT, TELEMETRY }

  private record Event(Instant at, long seq, Kind kind, Object payload, long generation) {}

  private final Scenario scenario;
  private final SimConfig config;
  private final String cluster;
  private final Duration telemetryEvery;
  private final double onlineFloorShare;
  private final Topology physical;
  private final double slowdown = PlacementConfig.DEFAULTS.crossSwitchSlowdown();
  private final MigrationCostModel costs = new MigrationCostModel(PreemptionConfig.DEFAULTS);
  /** P5 priced with the same config as the costs: realised gain in the same unit. */
  private final PreemptionGain gain = new PreemptionGain(PreemptionConfig.DEFAULTS);
  private final double onlineGuarantee;
  private final double onlinePeaks;

  /** Events the schedulers should see promptly (a tick follows 1 ms after each). */
  private final PriorityQueue<Event> urgent = new PriorityQueue<>(
      Comparator.comparing(Event::at).thenComparingLong(Event::seq));
  /** Events that wait for the next regular tick (checkpoint reports, telemetry). */
  private final PriorityQueue<Event> background = new PriorityQueue<>(
      Comparator.comparing(Event::at).thenComparingLong(Event::seq));
  private long seq;
  private Instant now;
  private final List<HostRecord> outbox = new ArrayList<>();
  private final List<Instant> outboxAt = new ArrayList<>();

  private final Map<String, TwinJob> jobs = new HashMap<>();
  private final TreeMap<String, TwinJob> running = new TreeMap<>();
  private final TreeSet<String> waitingOffline = new TreeSet<>();
  private final List<List<TwinJob>> live = new ArrayList<>();
  private final int[] instanceSeq;
  private final Map<String, TreeMap<String, Double>> gpuHolders = new HashMap<>();

  // what the schedulers published that measurement reads
  private ClusterState ledger = ClusterState.empty();
  private final TreeMap<Instant, Map<String, Double>> forecasts = new TreeMap<>();
  private final Map<String, Preemption> preemptions = new HashMap<>();
  /**
   * Decisions placement enacted (an eviction names them): only these count as preemptions — a
   * stale plan placement refused evicted nobody (measures follow applied facts).
   */
  private final java.util.Set<String> enacted = new java.util.HashSet<>();

  // measurement
  private final List<Double> onlineWaits = new ArrayList<>();
  private final List<Double> bigJobWaits = new ArrayList<>();
  private final List<Double> jcts = new ArrayList<>();
  private final List<TimelineSample> timeline = new ArrayList<>();
  private final TreeMap<String, Double> tenantReceived = new TreeMap<>();
  private final TreeMap<String, Double> tenantDemanded = new TreeMap<>();
  private double allocatedGpuSeconds;
  private double usefulGpuSeconds;
  private double offlineRunningSeconds;
  private long evictions;
  private long migrations;
  private long reservations;
  private long firstDayReservations;
  /** The end of the run's first simulated day (F1 cold start: what is reserved before it). */
  private Instant firstDayEnd = Instant.MIN;
  private final OverIssueMeter overIssues = new OverIssueMeter();
  private long offlinePlacements;
  private long multiNodePlacements;
  private long crossDomainPlacements;
  private long submitted;
  private long completed;
  private long scaleUps;
  private long decisionsSeen;

  /** A preemption decision that evicted, for the ineffective-preemption measure. */
  private static final class Preemption {
    final Instant at;
    final String preemptor;
    final double costGpuHours;
    final double gainGpuHours;

    Preemption(Instant at, String preemptor, double cost, double gain) {
      this.at = at;
      this.preemptor = preemptor;
      this.costGpuHours = cost;
      this.gainGpuHours = gain;
    }
  }

  /**
   * A world for {@code scenario}.
   *
   * @param cluster the cluster name on every record
   * @param telemetryEvery one sample per GPU this often
   * @param onlineFloorShare Q1: the online queue's floor as a share of the services' peaks
   */
  public World(Scenario scenario, String cluster, Duration telemetryEvery,
      double onlineFloorShare) {
    this.scenario = scenario;
    this.config = scenario.config();
    this.cluster = cluster;
    this.telemetryEvery = telemetryEvery;
    this.onlineFloorShare = onlineFloorShare;
    this.physical = Topology.of(scenario.nodes());
    int services = config.services().size();
    this.instanceSeq = new int[services];
    double guarantee = 0;
    double peaks = 0;
    for (int k = 0; k < services; k++) {
      live.add(new ArrayList<>());
      double peak = 0;
      for (int s = 0; s < scenario.demand().steps(); s++) {
        peak = Math.max(peak, scenario.demand().gpus(k, s));
      }
      peaks += peak;
      guarantee += Math.ceil(config.onlineGuaranteeFraction() * peak - 1e-9);
    }
    this.onlineGuarantee = guarantee;
    this.onlinePeaks = peaks;
  }

  /** The scenario played. */
  public Scenario scenario() {
    return scenario;
  }

  // ============================================================================ the clock

  /**
   * Before the clock starts: the fleet on {@code cluster.inventory} and the quota definition on
   * {@code quota.config}, timed {@code start}, and the scenario's events queued.
   */
  public void start(Instant start, Instant end) {
    now = start;
    firstDayEnd = start.plus(Duration.ofDays(1));
    for (Node n : scenario.nodes()) {
      List<GpuInfo> gpus = new ArrayList<>();
      for (int g = 0; g < n.gpuCount(); g++) {
        gpus.add(GpuInfo.newBuilder().setIndex(g).setUuid(n.id() + "/" + g).setNvlinkIsland(0)
            .build());
      }
      emit(TopicCatalogue.CLUSTER_INVENTORY, n.id(), NodeInventory.newBuilder()
          .setCluster(cluster).setNodeId(n.id()).setChange(NodeChange.JOINED).setObservedAt(now)
          .setGpuModel(n.gpuModel()).setGpuMemoryMiB(GPU_MEMORY_MIB).setGpuCount(n.gpuCount())
          .setGpus(gpus).setSwitchPath(io.tideline.events.SwitchPath.newBuilder()
              .setAccessSwitch(n.path().asw()).setAggregationSwitch(n.path().psw())
              .setCoreSwitch(n.path().dsw()).build())
          .build());
    }
    emit(TopicCatalogue.get("quota.config").name(), cluster, QuotaConfigDocument.newBuilder()
        .setCluster(cluster).setVersion("twin-" + config.seed())
        .setFormat(QuotaConfigFormat.YAML).setDocument(quotaDocument()).setAuthor(EXECUTOR)
        .setPublishedAt(now).build());
    history(start);
    for (int s = 0; s < scenario.demand().steps(); s++) {
      Instant at = config.start().plus(config.demandStep().multipliedBy(s));
      if (!at.isBefore(start) && at.isBefore(end)) {
        push(at, Kind.DEMAND, s, 0);
      }
    }
    for (JobSpec spec : scenario.jobs()) {
      if (!spec.submitAt().isBefore(start) && spec.submitAt().isBefore(end)) {
        push(spec.submitAt(), Kind.SUBMIT, spec, 0);
      }
    }
    for (Instant t = start; t.isBefore(end); t = t.plus(telemetryEvery)) {
      push(t, Kind.TELEMETRY, null, 0);
    }
  }

  /** The earliest world event not yet played that the schedulers should see promptly, or null. */
  public Instant nextUrgent() {
    return urgent.isEmpty() ? null : urgent.peek().at();
  }

  /**
   * Plays every world event timed strictly before {@code tick}, in time order, and returns the
   * records they publish with their event times ({@link Timed}).
   */
  public List<Timed> before(Instant tick) {
    while (true) {
      Event u = urgent.peek();
      Event b = background.peek();
      Event e = u == null ? b : b == null ? u
          : (u.at().isBefore(b.at()) || (u.at().equals(b.at()) && u.seq() < b.seq())) ? u : b;
      if (e == null || !e.at().isBefore(tick)) {
        break;
      }
      (e == u ? urgent : background).poll();
      now = e.at();
      handle(e);
    }
    return drain();
  }

  /** A record with the event time it carries (the transport's record timestamp). */
  public record Timed(Instant at, HostRecord record) {}

  private List<Timed> drain() {
    List<Timed> out = new ArrayList<>(outbox.size());
    for (int i = 0; i < outbox.size(); i++) {
      out.add(new Timed(outboxAt.get(i), outbox.get(i)));
    }
    outbox.clear();
    outboxAt.clear();
    return out;
  }

  /** The clock tick at {@code at}. */
  public Timed tick(Instant at, long sequence, Duration interval) {
    return new Timed(at, new HostRecord(TopicCatalogue.CLUSTER_CLOCK, cluster,
        ClockTick.newBuilder().setCluster(cluster).setTime(at).setSequence(sequence)
            .setIntervalMillis(interval.toMillis()).setSource(ClockSource.SIMULATED).build()));
  }

  private void push(Instant at, Kind kind, Object payload, long generation) {
    Event e = new Event(at, seq++, kind, payload, generation);
    (kind == Kind.CHECKPOINT || kind == Kind.TELEMETRY ? background : urgent).add(e);
  }

  private void emit(String topic, String key, org.apache.avro.specific.SpecificRecord value) {
    outbox.add(new HostRecord(topic, key, value));
    outboxAt.add(now);
  }

  private void handle(Event e) {
    switch (e.kind()) {
      case SUBMIT -> submit((JobSpec) e.payload());
      case DEMAND -> scale((Integer) e.payload());
      case FINISH -> finish((TwinJob) e.payload(), e.generation());
      case STOPPED -> stopped((TwinJob) e.payload(), e.generation());
      case RESUMED -> resumed((TwinJob) e.payload(), e.generation());
      case CHECKPOINT -> checkpointed((TwinJob) e.payload(), e.generation());
      case TELEMETRY -> telemetry();
    }
  }

  // ============================================================================ users

  private void submit(JobSpec spec) {
    JobRequest base = spec.toRequest(spec.gpuModel().isEmpty() ? List.of()
        : List.of(spec.gpuModel()));
    JobRequest req = new JobRequest(base.jobId(), base.tenant(), TEAM, base.user(),
        base.workloadClass(), base.critical(), base.preemptible(), base.preemptionRight(), null,
        base.gpuCount(), base.gpuShare(), base.gangSize(), base.nodes(), base.allowedGpuModels(),
        now, null, base.expectedDurationSeconds(), base.checkpoint(), base.dataCacheGb(),
        base.resources());
    TwinJob j = new TwinJob(req, spec, -1, now);
    jobs.put(req.jobId(), j);
    waitingOffline.add(req.jobId());
    submitted++;
    tenantDemanded.merge(spec.tenant(), spec.gpuDemand() * spec.durationSeconds()
        / SECONDS_PER_HOUR, Double::sum);
    emit(TopicCatalogue.JOBS_SUBMITTED, req.jobId(), toEvent(req));
  }

  /** W2: each service to its demand; scale-down only to the stabilisation window's highest need. */
  private void scale(int step) {
    int window = (int) (config.scaleDownStabilisation().toSeconds()
        / config.demandStep().toSeconds());
    for (int k = 0; k < config.services().size(); k++) {
      OnlineService svc = config.services().get(k);
      int target = scenario.demand().instances(k, step);
      int keep = target;
      for (int s = Math.max(0, step - window); s < step; s++) {
        keep = Math.max(keep, scenario.demand().instances(k, s));
      }
      List<TwinJob> mine = live.get(k);
      while (mine.size() < target) {
        String id = String.format(Locale.ROOT, "%s-%06d", svc.id(), instanceSeq[k]++);
        JobRequest req = new JobRequest(id, ONLINE, ONLINE, svc.id() + "-owner",
            WorkloadClass.ONLINE_INFERENCE, false, false, true, svc.id(), svc.gpusPerInstance(),
            svc.gpuShare(), 1, 0, List.of(), now, null, 0, null, 0);
        TwinJob j = new TwinJob(req, null, k, now);
        jobs.put(id, j);
        mine.add(j);
        scaleUps++;
        emit(TopicCatalogue.JOBS_SUBMITTED, id, toEvent(req));
      }
      int surplus = mine.size() - keep;
      // queued instances first (newest first), then running ones
      for (int pass = 0; pass < 2 && surplus > 0; pass++) {
        for (int i = mine.size() - 1; i >= 0 && surplus > 0; i--) {
          TwinJob j = mine.get(i);
          if ((j.state == TwinJob.State.RUNNING) == (pass == 1)) {
            mine.remove(i);
            retire(j, "scaled down");
            surplus--;
          }
        }
      }
    }
  }

  /** An instance the autoscaler no longer wants: it stops (or is withdrawn) for good. */
  private void retire(TwinJob j, String why) {
    if (j.state == TwinJob.State.RUNNING) {
      endStint(j, Math.max(0, TwinJob.seconds(j.productiveFrom(), now)));
      release(j);
    }
    j.state = TwinJob.State.DONE;
    j.generation++;
    lifecycle(j, LifecycleType.COMPLETED, null, why);
  }

  /**
   * Q1/Q2 for the twin's tenants: the online queue's floor is {@code onlineFloorShare} of the
   * services' peaks (Q1: 70%), with the right to preempt; each tenant's training queue is floored
   * at its key training jobs' need ({@link #offlineFloors}), the rest is the shared pool every
   * tenant borrows from; critical jobs may preempt. Online instances are declared non-preemptible
   * (W1); those above the floor borrow the shared pool (Q3, ADR 0007).
   */
  String quotaDocument() {
    long floor = (long) Math.ceil(onlineFloorShare * onlinePeaks - 1e-9);
    java.util.Map<String, Long> offline = offlineFloors(floor);
    long total = floor + offline.values().stream().mapToLong(Long::longValue).sum();
    StringBuilder sb = new StringBuilder();
    sb.append("version: \"twin-").append(config.seed()).append("\"\n")
        .append("fleetGpus: ").append(config.fleetGpus()).append("\nnodes:\n");
    node(sb, "twin", "ORGANISATION", null, total, null);
    node(sb, "twin/" + ONLINE, "BUSINESS_LINE", null, floor, "[ONLINE_INFERENCE]");
    node(sb, "twin/" + ONLINE + "/" + ONLINE, "TEAM", null, floor, null);
    node(sb, "twin/" + ONLINE + "/" + ONLINE + "/inference", "QUEUE", "INFERENCE", floor, null);
    for (String tenant : config.tenants()) {
      long f = offline.getOrDefault(tenant, 0L);
      node(sb, "twin/" + tenant, "BUSINESS_LINE", null, f, "[CRITICAL_JOBS]");
      node(sb, "twin/" + tenant + "/" + TEAM, "TEAM", null, f, null);
      node(sb, "twin/" + tenant + "/" + TEAM + "/training", "QUEUE", "TRAINING", f, null);
      node(sb, "twin/" + tenant + "/" + TEAM + "/batch", "QUEUE", "BATCH", 0, null);
    }
    return sb.toString();
  }

  /**
   * Q1 offline guaranteed, "the minimum GPUs of the key training jobs": per tenant, the GPUs of its
   * largest non-preemptible training job in the scenario (one key job can always run on its
   * guarantee; the others queue for it), together at most {@link SimConfig#offlineGuaranteeCap()}
   * of the GPUs the online floor leaves, scaled down in whole GPUs beyond that.
   */
  java.util.Map<String, Long> offlineFloors(long onlineFloor) {
    java.util.Map<String, Long> need = new java.util.TreeMap<>();
    for (JobSpec j : scenario.jobs()) {
      if (!j.preemptible() && j.workloadClass() != io.tideline.core.model.WorkloadClass.BATCH_INFERENCE
          && j.gpuShare() >= 1) {
        need.merge(j.tenant(), (long) j.gpus(), Math::max);
      }
    }
    long sum = need.values().stream().mapToLong(Long::longValue).sum();
    double cap = config.offlineGuaranteeCap() * Math.max(0, config.fleetGpus() - onlineFloor);
    if (sum > cap) {
      double scale = cap / sum;
      need.replaceAll((t, g) -> (long) Math.floor(g * scale));
    }
    return need;
  }

  private static void node(StringBuilder sb, String path, String kind, String lane, long floor,
      String grants) {
    sb.append("  - path: ").append(path).append("\n    kind: ").append(kind).append('\n');
    if (lane != null) {
      sb.append("    lane: ").append(lane).append('\n');
    }
    sb.append("    guaranteedGpus: ").append(floor).append('\n');
    if (grants != null) {
      sb.append("    preemptionGrants: ").append(grants).append('\n');
    }
  }

  private JobSubmitted toEvent(JobRequest r) {
    ResourceRequest.Builder res = ResourceRequest.newBuilder().setGpuCount(r.gpuCount())
        .setGpuShare(r.gpuShare()).setGangSize(r.gangSize()).setNodes(r.nodes())
        .setAllowedGpuModels(new ArrayList<>(r.allowedGpuModels()));
    JobSubmitted.Builder b = JobSubmitted.newBuilder().setJobId(r.jobId()).setSubmittedAt(now)
        .setTenant(r.tenant()).setTeam(r.team()).setUser(r.user())
        .setWorkloadClass(io.tideline.events.WorkloadClass.valueOf(r.workloadClass().name()))
        .setCritical(r.critical()).setPreemptible(r.preemptible())
        .setPreemptionRight(r.preemptionRight()).setServiceId(r.serviceId())
        .setResources(res.build()).setExpectedDurationSeconds(r.expectedDurationSeconds())
        .setDataCacheGb(r.dataCacheGb())
        .setContacts(NotificationContacts.newBuilder().setLocale("en").build());
    if (r.checkpoint() != null) {
      b.setCheckpoint(io.tideline.events.CheckpointProfile.newBuilder()
          .setStateSizeGb(r.checkpoint().stateSizeGb())
          .setStorageBandwidthGbPerSec(r.checkpoint().storageBandwidthGbPerSec())
          .setWriteShards(r.checkpoint().writeShards())
          .setIntervalSeconds(r.checkpoint().intervalSeconds()).build());
    }
    return b.build();
  }

  // ============================================================================ the executor

  /**
   * What the schedulers published in the last cycle, in the transport's canonical order: the
   * executor acts on placements and evictions at {@code at}; measurement keeps the ledger,
   * forecasts, reservations and preemption decisions.
   */
  public void observe(List<HostRecord> records, Instant at) {
    now = at;
    for (HostRecord r : records) {
      Object v = r.value();
      if (v instanceof PlacementDecision d) {
        decisionsSeen++;
        if (d.getOutcome() == PlacementOutcome.PLACED) {
          placed(d);
        }
      } else if (v instanceof Eviction e) {
        if (e.getDecisionId() != null) {
          enacted.add(e.getDecisionId());
        }
        evicted(e);
      } else if (v instanceof LedgerChange c) {
        io.tideline.core.cluster.state.LedgerChange change = ClusterMapping.change(c);
        ledger = ledger.apply(new Journal(), change).state();
        overIssues.apply(change);
      } else if (v instanceof io.tideline.events.CapacityReservation c
          && c.getAction() == io.tideline.events.ReservationAction.RESERVE) {
        reservations++;
        if (at.isBefore(firstDayEnd)) {
          firstDayReservations++;
        }
      } else if (v instanceof SlotForecast f && !"*".equals(f.getServiceId())) {
        forecasts.computeIfAbsent(f.getSlotStart(), x -> new TreeMap<>())
            .put(f.getServiceId(), f.getP90());
      } else if (v instanceof PreemptionDecision p && p.getOutcome() == PreemptionOutcome.PREEMPT) {
        String who = p.getPreemptorJobId();
        if (who.startsWith("reservation/")) {
          Reservation res = ledger.reservations().get(who.substring("reservation/".length()));
          who = res == null ? who : "service/" + res.serviceId();
        } else if (who.startsWith(PreemptionKernel.GUARANTEE_RECLAIM)) {
          // Q3: the job below its guarantee
          who = who.substring(PreemptionKernel.GUARANTEE_RECLAIM.length());
        }
        preemptions.put(p.getDecisionId(), new Preemption(at, who, p.getTotalCostGpuHours(),
            p.getGainGpuHours()));
      }
    }
  }

  /** The topics the world reads. */
  public static List<String> observed() {
    return List.of(TopicCatalogue.PLACEMENT_DECISIONS, TopicCatalogue.EVICTIONS,
        TopicCatalogue.PLACEMENT_LEDGER, TopicCatalogue.CAPACITY_RESERVATIONS,
        TopicCatalogue.FORECAST_SLOTS, TopicCatalogue.PREEMPTION_DECISIONS);
  }

  private void placed(PlacementDecision d) {
    TwinJob j = jobs.get(d.getJobId());
    if (j == null || j.state != TwinJob.State.PENDING) {
      return; // not ours, or a duplicate
    }
    j.state = TwinJob.State.RUNNING;
    j.startedAt = now;
    j.assignments = new ArrayList<>(d.getAssignments());
    j.startupSeconds = j.owedRestartSeconds;
    j.owedRestartSeconds = 0;
    Set<String> nodes = new TreeSet<>();
    j.assignments.forEach(a -> nodes.add(a.getNodeId()));
    j.nodesSpanned = nodes.size();
    int tiers = tiersCrossed(j.assignments);
    j.speed = j.online() ? 1.0 : Math.pow(1 - slowdown, tiers);
    hold(j);
    running.put(j.id(), j);
    if (j.firstStartAt == null) {
      j.firstStartAt = now;
      double waited = TwinJob.seconds(j.submittedAt, now);
      if (j.online()) {
        onlineWaits.add(waited);
      } else if (j.request.gpuCount() >= config.gpusPerNode()) {
        bigJobWaits.add(waited / 60.0);
      }
    }
    j.stints.add(new Instant[] {now, null});
    if (!j.online()) {
      waitingOffline.remove(j.id());
      offlinePlacements++;
      if (nodes.size() > 1) {
        multiNodePlacements++;
        if (tiers > 0) {
          crossDomainPlacements++;
        }
      }
      push(j.expectedEnd(), Kind.FINISH, j, j.generation);
      scheduleCheckpoint(j);
    }
    lifecycle(j, LifecycleType.STARTED, d.getDecisionId(), "started by the twin");
  }

  private void evicted(Eviction e) {
    TwinJob j = jobs.get(e.getJobId());
    if (j == null || j.state != TwinJob.State.RUNNING || j.stopping) {
      return;
    }
    double write = j.request.checkpoint() == null || !e.getCheckpointFirst() ? 0
        : costs.writeSeconds(j.request.checkpoint());
    Instant done = now.plusMillis(Math.round(Math.min(write, e.getGraceSeconds()) * 1000));
    j.stopping = true;
    j.stopDecision = e.getDecisionId();
    if (e.getKind() == EvictionKind.MIGRATE && !e.getTarget().isEmpty()) {
      migrations++;
      j.migrateTo = new ArrayList<>(e.getTarget());
      if (j.online()) {
        done = now; // inference migrates make-before-break
      }
      push(done, Kind.RESUMED, j, j.generation);
      return;
    }
    evictions++;
    push(done, Kind.STOPPED, j, j.generation);
  }

  /** An evicted job has written its checkpoint: it stops, keeping the work done so far. */
  private void stopped(TwinJob j, long generation) {
    if (j.generation != generation || j.state != TwinJob.State.RUNNING) {
      return;
    }
    double kept = j.online() ? 0 : j.progressAt(now);
    endStint(j, j.online() ? Math.max(0, TwinJob.seconds(j.productiveFrom(), now))
        : kept - j.workAtStart);
    j.workAtStart = kept;
    release(j);
    j.state = TwinJob.State.PENDING;
    j.stopping = false;
    j.generation++;
    j.evictions++;
    j.owedRestartSeconds = restartSeconds(j, j.nodesSpanned);
    if (!j.online()) {
      waitingOffline.add(j.id());
    }
    lifecycle(j, LifecycleType.PREEMPTED, j.stopDecision, "checkpointed and stopped by the "
        + "twin; work kept to the checkpoint");
  }

  /** A migrating job runs at its target. */
  private void resumed(TwinJob j, long generation) {
    if (j.generation != generation || j.state != TwinJob.State.RUNNING || j.migrateTo == null) {
      return;
    }
    if (!j.online()) {
      double kept = j.progressAt(now);
      endStint(j, kept - j.workAtStart);
      j.workAtStart = kept;
    } else {
      endStint(j, Math.max(0, TwinJob.seconds(j.productiveFrom(), now)));
    }
    release(j);
    j.assignments = j.migrateTo;
    j.migrateTo = null;
    j.stopping = false;
    Set<String> nodes = new TreeSet<>();
    j.assignments.forEach(a -> nodes.add(a.getNodeId()));
    j.nodesSpanned = nodes.size();
    j.startedAt = now;
    j.startupSeconds = j.online() ? 0 : restartSeconds(j, nodes.size());
    j.speed = j.online() ? 1.0 : Math.pow(1 - slowdown, tiersCrossed(j.assignments));
    j.generation++;
    hold(j);
    running.put(j.id(), j);
    j.stints.add(new Instant[] {now, null});
    if (!j.online()) {
      push(j.expectedEnd(), Kind.FINISH, j, j.generation);
      scheduleCheckpoint(j);
    }
    lifecycle(j, LifecycleType.RESUMED, null, "migrated by the twin");
  }

  private double restartSeconds(TwinJob j, int nodes) {
    if (j.online() || j.request.checkpoint() == null) {
      return 0;
    }
    double write = costs.writeSeconds(j.request.checkpoint());
    return write * PreemptionConfig.DEFAULTS.restoreFactor()
        + costs.commRebuildSeconds(j.gpus(), nodes);
  }

  private void finish(TwinJob j, long generation) {
    if (j.generation != generation || j.state != TwinJob.State.RUNNING) {
      return;
    }
    endStint(j, j.work() - j.workAtStart);
    release(j);
    j.state = TwinJob.State.DONE;
    j.generation++;
    completed++;
    jcts.add(TwinJob.seconds(j.submittedAt, now) / SECONDS_PER_HOUR);
    lifecycle(j, LifecycleType.COMPLETED, null, "work done");
  }

  private void scheduleCheckpoint(TwinJob j) {
    if (j.request.checkpoint() == null || j.request.checkpoint().intervalSeconds() <= 0) {
      return;
    }
    Instant next = j.productiveFrom().plusSeconds(j.request.checkpoint().intervalSeconds());
    if (next.isBefore(j.expectedEnd())) {
      push(next, Kind.CHECKPOINT, j, j.generation);
    }
  }

  private void checkpointed(TwinJob j, long generation) {
    if (j.generation != generation || j.state != TwinJob.State.RUNNING || j.stopping) {
      return;
    }
    publish(j, LifecycleType.CHECKPOINTED, null, null, now);
    Instant next = now.plusSeconds(j.request.checkpoint().intervalSeconds());
    if (next.isBefore(j.expectedEnd())) {
      push(next, Kind.CHECKPOINT, j, j.generation);
    }
  }

  private void lifecycle(TwinJob j, LifecycleType type, String decisionId, String message) {
    publish(j, type, decisionId, message, null);
  }

  private void publish(TwinJob j, LifecycleType type, String decisionId, String message,
      Instant checkpointAt) {
    emit(TopicCatalogue.JOBS_LIFECYCLE, j.id(), JobLifecycle.newBuilder().setJobId(j.id())
        .setCluster(cluster).setType(type).setOccurredAt(now)
        .setAssignments(j.assignments == null ? List.of() : new ArrayList<>(j.assignments))
        .setDecisionId(decisionId).setMessage(message).setCheckpointAt(checkpointAt)
        .setProgress(j.online() || j.state != TwinJob.State.RUNNING ? null
            : Math.min(1, j.progressAt(now) / j.work()))
        .build());
  }

  private void release(TwinJob j) {
    running.remove(j.id());
    if (j.assignments == null) {
      return;
    }
    for (var a : j.assignments) {
      TreeMap<String, Double> h = gpuHolders.get(a.getNodeId() + "/" + a.getGpuIndex());
      if (h != null) {
        h.remove(j.id());
      }
    }
  }

  private void hold(TwinJob j) {
    for (var a : j.assignments) {
      gpuHolders.computeIfAbsent(a.getNodeId() + "/" + a.getGpuIndex(), x -> new TreeMap<>())
          .merge(j.id(), a.getShare(), Double::sum);
    }
  }

  /** Switch tiers above the access switch the assignments span, on the physical topology (T1). */
  private int tiersCrossed(List<io.tideline.events.GpuAssignment> as) {
    Node first = null;
    int tiers = 0;
    for (var a : as) {
      int i = physical.indexOf(a.getNodeId());
      if (i < 0) {
        continue;
      }
      Node n = physical.node(i);
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
  private void endStint(TwinJob j, double keptWorkDelta) {
    double wall = TwinJob.seconds(j.startedAt, now);
    double gpus = j.gpus();
    allocatedGpuSeconds += wall * gpus;
    usefulGpuSeconds += Math.max(0, keptWorkDelta) * gpus;
    if (!j.stints.isEmpty()) {
      j.stints.get(j.stints.size() - 1)[1] = now;
    }
    if (!j.online()) {
      offlineRunningSeconds += wall;
      tenantReceived.merge(j.request.tenant(), Math.max(0, keptWorkDelta) * gpus
          / SECONDS_PER_HOUR, Double::sum);
    }
  }

  // ============================================================================ the GPUs

  /** Salt separating the history's demand noise from the shown days' of the same seed. */
  private static final long HISTORY_SALT = 0x4157_0121L;

  /**
   * F1's history ({@link SimConfig#historyDays}): the days before {@code start} as the services
   * lived them, from the same demand model (its own noise stream), on
   * {@code gpu.telemetry.batches} — the forecaster's real input path, one batch per node per step
   * (ADR 0040) — timed on those days and published before the first tick, which records them. Per demand step, each service in config order holds as many of the fleet's
   * GPUs (node order, then index) as its instances need, one OK sample each at the step's start.
   * The samples carry the service but no job (quota bills jobs only, so it counts none of them).
   */
  private void history(Instant start) {
    int days = config.historyDays();
    if (days == 0) {
      return;
    }
    Instant from = start.minus(Duration.ofDays(days));
    SimConfig past = config.with(config.seed() ^ HISTORY_SALT, days, config.nodes())
        .withStart(from);
    InferenceDemand demand = InferenceDemand.load(Scenario.resource(Scenario.DEMAND), past);
    Instant keep = now;
    for (int step = 0; step < demand.steps(); step++) {
      now = from.plus(config.demandStep().multipliedBy(step));
      if (!now.isBefore(start)) {
        break;
      }
      int nodeIndex = 0;
      int gpu = 0;
      List<GpuSample> scrape = new ArrayList<>();
      for (int k = 0; k < config.services().size(); k++) {
        OnlineService svc = config.services().get(k);
        int held = (int) Math.ceil(demand.instances(k, step) * svc.instanceGpus() - 1e-9);
        for (int i = 0; i < held && nodeIndex < scenario.nodes().size(); i++) {
          Node n = scenario.nodes().get(nodeIndex);
          String gpuId = n.id() + "/" + gpu;
          scrape.add(GpuSample.newBuilder().setGpuId(gpuId)
              .setCluster(cluster).setNodeId(n.id()).setGpuIndex(gpu).setModel(n.gpuModel())
              .setSampledAt(now).setState(SampleState.OK).setUtilizationPct(100.0)
              .setSource(SampleSource.SIMULATOR).setServiceId(svc.id()).build());
          if (++gpu == n.gpuCount()) {
            gpu = 0;
            nodeIndex++;
          }
        }
      }
      emitScrape(scrape);
    }
    now = keep;
  }

  private void telemetry() {
    for (Node n : scenario.nodes()) {
      List<GpuSample> scrape = new ArrayList<>(n.gpuCount());
      for (int g = 0; g < n.gpuCount(); g++) {
        String gpuId = n.id() + "/" + g;
        double share = 0;
        TwinJob holder = null;
        double largest = 0;
        for (Map.Entry<String, Double> h : gpuHolders.getOrDefault(gpuId, new TreeMap<>())
            .entrySet()) {
          share += h.getValue();
          if (h.getValue() > largest) {
            largest = h.getValue();
            holder = jobs.get(h.getKey());
          }
        }
        GpuSample.Builder s = GpuSample.newBuilder().setGpuId(gpuId).setCluster(cluster)
            .setNodeId(n.id()).setGpuIndex(g).setModel(n.gpuModel()).setSampledAt(now)
            .setState(SampleState.OK).setUtilizationPct(100.0 * Math.min(1, share))
            .setSource(SampleSource.SIMULATOR);
        if (holder != null) {
          s.setJobId(holder.id()).setServiceId(holder.request.serviceId());
        }
        scrape.add(s.build());
      }
      emitScrape(scrape);
    }
  }

  /**
   * A scrape's samples as one {@code gpu.telemetry.batches} record per node (ADR 0040), what
   * gpu-telemetry-svc publishes: the consumers read a batch exactly as its samples in order.
   */
  private void emitScrape(List<GpuSample> scrape) {
    for (GpuSampleBatch b : SampleBatches.ofScrape(scrape,
        InputBounds.DEFAULTS.maxGpusPerNode())) {
      emit(TopicCatalogue.GPU_TELEMETRY_BATCHES, b.getNodeId(), b);
    }
  }

  // ============================================================================ measurement

  /** One chart sample at {@code at} (the controller tick of {@link SimConfig#tick()}). */
  public void sample(Instant at) {
    now = at;
    double online = 0;
    double offline = 0;
    for (TwinJob j : running.values()) {
      if (j.online()) {
        online += j.gpus();
      } else {
        offline += j.gpus();
      }
    }
    int step = scenario.demand().stepOf(at);
    double demand = 0;
    for (int k = 0; k < config.services().size(); k++) {
      demand += scenario.demand().gpus(k, step);
    }
    int reservedIdle = 0;
    double fragmentation = 0;
    ClusterSnapshot snap = ledger.snapshot();
    if (snap != null) {
      for (Reservation r : snap.reservations().values()) {
        if (r.id().startsWith("hold:") || r.id().startsWith("migrate:") || !r.activeAt(at)) {
          continue;
        }
        for (GpuRef g : r.gpus()) {
          int i = snap.topology().indexOf(g.nodeId());
          if (i >= 0 && snap.ledger(i).isIdle(g.gpuIndex())) {
            reservedIdle++;
          }
        }
      }
      int idle = snap.idleGpus();
      fragmentation = idle == 0 ? 0 : Math.min(1, new FragmentationIndex(
          DemandHistogram.wholeNode(config.gpusPerNode())).strandedGpus(snap) / idle);
    }
    double forecast = Double.NaN;
    Map.Entry<Instant, Map<String, Double>> f = forecasts.floorEntry(at);
    if (f != null && at.isBefore(f.getKey().plus(config.demandStep()))) {
      forecast = f.getValue().values().stream().mapToDouble(Double::doubleValue).sum();
    }
    double occupancy = Math.min(1, (online + offline) / config.fleetGpus());
    timeline.add(new TimelineSample(at, demand, online, reservedIdle, offline, forecast,
        occupancy, fragmentation, waitingOffline.size()));
  }

  /** Placement decisions seen. */
  public long decisionsSeen() {
    return decisionsSeen;
  }

  /** Jobs running now. */
  public int runningJobs() {
    return running.size();
  }

  /** Offline jobs waiting now. */
  public int waitingJobs() {
    return waitingOffline.size();
  }

  /** The measured outcome of the run, closed at {@code end}. */
  public SimResult result(String policy, Instant end) {
    now = end;
    for (TwinJob j : new ArrayList<>(running.values())) {
      endStint(j, j.online() ? Math.max(0, TwinJob.seconds(j.productiveFrom(), now))
          : j.progressAt(now) - j.workAtStart);
    }
    for (String id : waitingOffline) {
      TwinJob j = jobs.get(id);
      if (j.firstStartAt == null && j.request.gpuCount() >= config.gpusPerNode()) {
        bigJobWaits.add(TwinJob.seconds(j.submittedAt, now) / 60.0); // censored at the horizon
      }
    }
    // ineffective preemptions: the preemptor did not start in the window, or what it ran did
    // not pay back the cost of its victims
    long ineffective = 0;
    long enactedCount = 0;
    for (Map.Entry<String, Preemption> e : preemptions.entrySet()) {
      if (!enacted.contains(e.getKey())) {
        continue;
      }
      enactedCount++;
      Preemption p = e.getValue();
      double ran = ranGpuHours(p);
      // the realised gain: what the preemptor ran, priced like P5 prices its wait (class weight),
      // capped by the gain the decision expected (it cannot avoid more wait than it would have
      // had); a decision with no expected gain (Q3 guarantee reclaim) is judged on what it ran
      double realised = p.gainGpuHours > 0 ? Math.min(ran, p.gainGpuHours) : ran;
      if (ran < 0 || realised < p.costGpuHours) {
        ineffective++;
      }
    }
    double alloc = 0;
    double trough = 0;
    int troughN = 0;
    double night = 0;
    int nightN = 0;
    for (TimelineSample s : timeline) {
      alloc += s.allocation();
      SlotClass c = scenario.slotMap().classAt(s.at());
      if (c == SlotClass.TROUGH || c == SlotClass.DEEP_TROUGH) {
        trough += s.allocation();
        troughN++;
      }
      LocalTime time = s.at().atZone(config.zone()).toLocalTime();
      if (!time.isBefore(config.nightStart()) && time.isBefore(config.nightEnd())) {
        double pool = config.fleetGpus() - onlineGuarantee;
        double used = s.onlineGpus() + s.offlineGpus() - Math.min(s.onlineGpus(), onlineGuarantee);
        night += pool <= 0 ? 0 : Math.max(0, Math.min(1, used / pool));
        nightN++;
      }
    }
    double useful = usefulGpuSeconds / SECONDS_PER_HOUR;
    return new SimResult(policy,
        Stats.median(onlineWaits), Stats.quantile(onlineWaits, 0.95),
        nightN == 0 ? 0 : night / nightN,
        troughN == 0 ? 0 : trough / troughN,
        offlineRunningSeconds == 0 ? 0 : evictions / (offlineRunningSeconds / 86_400.0),
        enactedCount == 0 ? 0 : ineffective / (double) enactedCount,
        allocatedGpuSeconds == 0 ? 0 : usefulGpuSeconds / allocatedGpuSeconds,
        Stats.median(bigJobWaits),
        timeline.isEmpty() ? 0 : alloc / timeline.size(),
        multiNodePlacements == 0 ? 0 : crossDomainPlacements / (double) multiNodePlacements,
        offlinePlacements == 0 ? 0 : crossDomainPlacements / (double) offlinePlacements,
        useful == 0 ? 0 : scenario.fleetCost() / useful,
        Stats.quantile(jcts, 0.5), Stats.quantile(jcts, 0.99),
        Stats.jainFairness(tenantDemanded, tenantReceived),
        useful, evictions, enactedCount, migrations, reservations, firstDayReservations,
        overIssues.overIssues(), overIssues.gpuHours(now), submitted, completed,
        scaleUps, timeline);
  }

  /**
   * GPU-hours the preemptor of {@code p} ran in the first stint it started within the
   * ineffective-preemption window after the decision, each hour priced by its class weight (P5:
   * static priority ÷ training's, the world's cost model config); -1 if it did not start in it.
   * A reservation start counts the service's instances that started in the window.
   */
  private double ranGpuHours(Preemption p) {
    Instant until = p.at.plus(config.ineffectiveWindow());
    List<TwinJob> who = new ArrayList<>();
    if (p.preemptor.startsWith("service/")) {
      String service = p.preemptor.substring("service/".length());
      for (TwinJob j : jobs.values()) {
        if (j.online() && service.equals(j.request.serviceId())) {
          who.add(j);
        }
      }
    } else if (jobs.containsKey(p.preemptor)) {
      who.add(jobs.get(p.preemptor));
    }
    double ran = -1;
    for (TwinJob j : who) {
      for (Instant[] s : j.stints) {
        if (!s[0].isBefore(p.at) && !s[0].isAfter(until)) {
          Instant e = s[1] == null ? now : s[1];
          ran = Math.max(0, ran) + classWeight(j) * j.gpus() * TwinJob.seconds(s[0], e)
              / SECONDS_PER_HOUR;
          break;
        }
      }
    }
    return ran;
  }

  /** P5's class weight of {@code j}'s waiting time, in training GPU-hours. */
  private double classWeight(TwinJob j) {
    return gain.classWeight(j.request.workloadClass(), j.request.critical());
  }
}
