package io.tideline.simulator;

import io.tideline.core.cluster.Node;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import io.tideline.core.placement.PlacementConfig;
import io.tideline.core.slots.SlotClass;
import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.GpuInfo;
import io.tideline.events.GpuSample;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeInventory;
import io.tideline.events.NotificationContacts;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.QuotaConfigDocument;
import io.tideline.events.QuotaConfigFormat;
import io.tideline.events.ResourceRequest;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The through-Kafka mode of the digital twin: it drives the real services on a broker in
 * compressed time and acts as their executor. Event time is simulated time: every record it
 * publishes carries the simulated instant as its event time and record timestamp, so the services
 * (which take {@code now} from event time) live in the simulated day.
 *
 * <p>Each simulated step (one clock interval) it: (1) waits until the step's wall-clock instant
 * (compression = simulated horizon ÷ {@code realSeconds}; only this pacing reads a clock);
 * (2) applies what the services decided since the last step — PLACED starts a job
 * ({@code jobs.lifecycle} STARTED), a PREEMPT eviction stops it after its checkpoint write
 * (PREEMPTED, work since the last checkpoint lost), a MIGRATE eviction moves it (RESUMED on the
 * target); (3) completes jobs whose work is done (COMPLETED); (4) on demand steps scales the online
 * services (new instances on {@code jobs.submitted}, surplus ones COMPLETED); (5) submits the
 * offline jobs due; (6) publishes a {@code cluster.clock} tick and, every telemetry interval, one
 * {@code gpu.telemetry} sample per GPU attributed to its job or service; (7) samples the fleet for
 * the table and charts. Before the first step it publishes the fleet on {@code cluster.inventory}
 * and a quota definition for its tenants on {@code quota.config}.
 *
 * <p>Simplifications: a started job runs at the topology speed of its placement's cross-domain
 * flag (T1 penalty); restore/warm-up after a restart is not charged; preemptions depend on
 * preemption-svc answering placement's requests.
 */
public final class KafkaTwin implements AutoCloseable {

  /** Where and how fast: the twin's own settings (the workload comes from {@link SimConfig}). */
  public record Settings(String bootstrap, String registryUrl, String cluster, Duration horizon,
      Duration clockStep, Duration telemetryEvery, double realSeconds, Duration settle,
      double onlineFloorShare) {

    /**
     * Cluster {@code default} (the services' default), a tick every simulated minute, telemetry
     * every 5 simulated minutes, up to 60 s for placement and quota to take the fleet and the quota
     * definition in before the clock starts, and the online queue's floor at the Q1 share of the
     * services' peaks ({@link SimConfig#onlineGuaranteeFraction()}, 0.7).
     */
    public static Settings of(String bootstrap, String registryUrl, Duration horizon,
        double realSeconds) {
      return new Settings(bootstrap, registryUrl, "default", horizon, Duration.ofMinutes(1),
          Duration.ofMinutes(5), realSeconds, Duration.ofSeconds(60),
          SimConfig.DEFAULTS.onlineGuaranteeFraction());
    }

    /** These settings with another floor share for the online queue's quota definition. */
    public Settings withOnlineFloorShare(double share) {
      return new Settings(bootstrap, registryUrl, cluster, horizon, clockStep, telemetryEvery,
          realSeconds, settle, share);
    }
  }

  /** Called after every step with the simulated instant and the share of the horizon done. */
  @FunctionalInterface
  public interface Progress {
    void step(Instant now, double done, int running, int queued);
  }

  private static final String ONLINE = "online";
  private static final String TEAM = "ml";
  private static final String EXECUTOR = "tideline-simulator";
  private static final double SECONDS_PER_HOUR = 3600.0;
  /** GPU memory reported for every simulated GPU: an H100 80GB HBM3, as telemetry's default. */
  private static final int GPU_MEMORY_MIB = 81559;

  private final Scenario scenario;
  private final SimConfig config;
  private final Settings settings;
  private final KafkaProducer<String, Object> producer;
  private final KafkaConsumer<String, Object> consumer;
  private final double slowdown = PlacementConfig.DEFAULTS.crossSwitchSlowdown();
  private final double onlineGuarantee;
  private final double onlinePeaks;

  private final Map<String, Job> jobs = new HashMap<>();
  private final List<List<Job>> live = new ArrayList<>();
  private final int[] instanceSeq;
  private final TreeMap<String, Job> running = new TreeMap<>();
  private final Set<String> pendingOffline = new TreeSet<>();
  /** GPU id → holders (job id → share): fractional instances share a GPU. */
  private final Map<String, TreeMap<String, Double>> gpuHolders = new HashMap<>();
  private final List<Object[]> stopping = new ArrayList<>(); // {Instant at, Job, String decision}
  private Instant now;

  // measurements
  private final List<Double> onlineWaits = new ArrayList<>();
  private final List<Double> bigJobWaits = new ArrayList<>();
  private final List<Double> jcts = new ArrayList<>();
  private final List<TimelineSample> timeline = new ArrayList<>();
  private final Map<String, Double> tenantReceived = new TreeMap<>();
  private final Map<String, Double> tenantDemanded = new TreeMap<>();
  private final Set<String> preemptionDecisions = new HashSet<>();
  private double allocatedGpuSeconds;
  private double usefulGpuSeconds;
  private double offlineRunningSeconds;
  private long evictions;
  private long migrations;
  private long reservations;
  private long offlinePlacements;
  private long multiNodePlacements;
  private long crossDomainPlacements;
  private long submitted;
  private long completed;
  private long scaleUps;
  private long decisionsSeen;

  /** One job the executor runs: an offline job of the scenario or an online instance. */
  private static final class Job {
    final JobRequest request;
    final JobSpec spec;
    final int service;
    final Instant submittedAt;
    Instant firstStart;
    Instant startedAt;
    Instant lastCheckpoint;
    double workKept;
    double speed = 1;
    List<io.tideline.events.GpuAssignment> assignments = List.of();
    boolean running;
    boolean done;

    Job(JobRequest request, JobSpec spec, int service, Instant submittedAt) {
      this.request = request;
      this.spec = spec;
      this.service = service;
      this.submittedAt = submittedAt;
    }

    boolean online() {
      return spec == null;
    }

    double gpus() {
      return request.gpuDemand();
    }

    /** Work done at {@code t} in this stint (full-speed seconds), kept or not. */
    double progress(Instant t) {
      return workKept + Math.max(0, Duration.between(startedAt, t).toMillis() / 1000.0) * speed;
    }

    Instant end() {
      double remaining = Math.max(0, spec.durationSeconds() - workKept) / speed;
      return startedAt.plusMillis((long) Math.ceil(remaining * 1000));
    }
  }

  /** A twin over {@code scenario} (its config's start must be near the present: retention). */
  public KafkaTwin(Scenario scenario, Settings settings) {
    this.scenario = scenario;
    this.config = scenario.config();
    this.settings = settings;
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrap());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    this.producer = new KafkaProducer<>(p, new StringSerializer(),
        AvroSerdes.valueSerializer(AvroSerdes.serdeConfig(settings.registryUrl(), true)));
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrap());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, EXECUTOR + "-" + config.start().toEpochMilli());
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true");
    this.consumer = new KafkaConsumer<>(c, new StringDeserializer(),
        AvroSerdes.valueDeserializer(AvroSerdes.serdeConfig(settings.registryUrl(), false)));
    double guarantee = 0;
    double peaks = 0;
    for (int k = 0; k < config.services().size(); k++) {
      live.add(new ArrayList<>());
      double peak = 0;
      for (int s = 0; s < scenario.demand().steps(); s++) {
        peak = Math.max(peak, scenario.demand().gpus(k, s));
      }
      guarantee += config.onlineGuaranteeFraction() * peak;
      peaks += peak;
    }
    this.onlineGuarantee = guarantee;
    this.onlinePeaks = peaks;
    this.instanceSeq = new int[config.services().size()];
  }

  /**
   * Runs the whole horizon in compressed time and measures it.
   *
   * @param wallMillis the pacing clock (the caller's: simulation logic never reads one)
   */
  public SimResult run(LongSupplier wallMillis, Progress progress) throws InterruptedException {
    // 1. subscribe first (latest offsets), then publish the fleet and the quota definition
    consumer.subscribe(List.of(TopicCatalogue.PLACEMENT_DECISIONS, TopicCatalogue.EVICTIONS,
        TopicCatalogue.CAPACITY_RESERVATIONS));
    long until = wallMillis.getAsLong() + 30_000;
    while (consumer.assignment().isEmpty() && wallMillis.getAsLong() < until) {
      consumer.poll(java.time.Duration.ofMillis(200));
    }
    now = config.start();
    publishFleet();
    publishQuota();
    producer.flush();
    // let the services take the fleet and the definition in before the clock starts: wait until
    // placement and quota have committed past them (bounded; a missing service only delays)
    awaitConsumed("placement-svc", TopicCatalogue.CLUSTER_INVENTORY, wallMillis);
    awaitConsumed("quota-svc", "quota.config", wallMillis);
    // 2. the steps
    Instant end = config.start().plus(settings.horizon());
    List<JobSpec> specs = scenario.jobs();
    int nextSpec = 0;
    long wall0 = wallMillis.getAsLong();
    double horizon = Duration.between(config.start(), end).toSeconds();
    double speedup = horizon / settings.realSeconds();
    for (Instant t = config.start(); t.isBefore(end); t = t.plus(settings.clockStep())) {
      long due = wall0 + (long) (Duration.between(config.start(), t).toMillis() / speedup);
      long wait = due - wallMillis.getAsLong();
      if (wait > 0) {
        Thread.sleep(wait);
      }
      now = t;
      applyDecisions();
      completeDue();
      long sinceStart = Duration.between(config.start(), t).toSeconds();
      if (sinceStart % config.demandStep().toSeconds() == 0) {
        scale(scenario.demand().stepOf(t));
      }
      while (nextSpec < specs.size() && !specs.get(nextSpec).submitAt().isAfter(t)) {
        submitOffline(specs.get(nextSpec++));
      }
      publish(TopicCatalogue.CLUSTER_CLOCK, settings.cluster(), ClockTick.newBuilder()
          .setCluster(settings.cluster()).setTime(t)
          .setSequence(t.toEpochMilli() / settings.clockStep().toMillis())
          .setIntervalMillis(settings.clockStep().toMillis()).setSource(ClockSource.SIMULATED)
          .build());
      if (sinceStart % settings.telemetryEvery().toSeconds() == 0) {
        publishTelemetry();
      }
      if (sinceStart % config.tick().toSeconds() == 0) {
        sample();
      }
      producer.flush();
      if (progress != null) {
        progress.step(t, (sinceStart + settings.clockStep().toSeconds()) / horizon,
            running.size(), pendingOffline.size());
      }
    }
    now = end;
    applyDecisions();
    return result();
  }

  /**
   * Waits (at most {@link Settings#settle()}) until consumer group {@code group} has committed the
   * end of every partition of {@code topic}.
   */
  private void awaitConsumed(String group, String topic, LongSupplier wallMillis)
      throws InterruptedException {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrap());
    long until = wallMillis.getAsLong() + settings.settle().toMillis();
    try (Admin admin = Admin.create(p)) {
      while (wallMillis.getAsLong() < until) {
        try {
          var parts = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic)
              .partitions().stream().map(i -> new TopicPartition(topic, i.partition())).toList();
          Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
          parts.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
          var ends = admin.listOffsets(latest).all().get();
          Map<TopicPartition, OffsetAndMetadata> done = admin.listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata().get();
          boolean caughtUp = true;
          for (TopicPartition tp : parts) {
            OffsetAndMetadata c = done.get(tp);
            long end = ends.get(tp).offset();
            if (end > 0 && (c == null || c.offset() < end)) {
              caughtUp = false;
            }
          }
          if (caughtUp) {
            return;
          }
        } catch (java.util.concurrent.ExecutionException e) {
          // the group or topic is not there yet: retry until the deadline
        }
        Thread.sleep(250);
      }
    }
  }

  // --------------------------------------------------------------------------------- publishing

  private void publish(String topic, String key, SpecificRecord value) {
    producer.send(new ProducerRecord<>(topic, null, now.toEpochMilli(), key, value));
  }

  private void publishFleet() {
    for (Node n : scenario.nodes()) {
      List<GpuInfo> gpus = new ArrayList<>();
      for (int g = 0; g < n.gpuCount(); g++) {
        gpus.add(GpuInfo.newBuilder().setIndex(g).setUuid(n.id() + "/" + g)
            .setNvlinkIsland(0).build());
      }
      publish(TopicCatalogue.CLUSTER_INVENTORY, n.id(), NodeInventory.newBuilder()
          .setCluster(settings.cluster()).setNodeId(n.id()).setChange(NodeChange.JOINED)
          .setObservedAt(now).setGpuModel(n.gpuModel()).setGpuMemoryMiB(GPU_MEMORY_MIB)
          .setGpuCount(n.gpuCount()).setGpus(gpus)
          .setSwitchPath(io.tideline.events.SwitchPath.newBuilder()
              .setAccessSwitch(n.path().aswDomain()).setAggregationSwitch(n.path().pswDomain())
              .setCoreSwitch(n.path().dswDomain()).build())
          .build());
    }
  }

  /**
   * Q1/Q2 for the twin's tenants: the online queue's floor is {@link Settings#onlineFloorShare()}
   * of the services' peaks (Q1: 70%), with the right to preempt; every training tenant borrows from
   * the shared pool without a cap, critical jobs may preempt. Online instances are declared
   * non-preemptible (W1: never victims); those above the floor borrow the shared pool (Q3, ADR
   * 0007) and are pool work there.
   */
  String quotaDocument() {
    long floor = (long) Math.ceil(settings.onlineFloorShare() * onlinePeaks - 1e-9);
    StringBuilder sb = new StringBuilder();
    sb.append("version: \"twin-").append(config.seed()).append("\"\n")
        .append("fleetGpus: ").append(config.fleetGpus()).append("\nnodes:\n");
    node(sb, "twin", "ORGANISATION", null, floor, null);
    node(sb, "twin/" + ONLINE, "BUSINESS_LINE", null, floor, "[ONLINE_INFERENCE]");
    node(sb, "twin/" + ONLINE + "/" + ONLINE, "TEAM", null, floor, null);
    node(sb, "twin/" + ONLINE + "/" + ONLINE + "/inference", "QUEUE", "INFERENCE", floor, null);
    for (String tenant : config.tenants()) {
      node(sb, "twin/" + tenant, "BUSINESS_LINE", null, 0, "[CRITICAL_JOBS]");
      node(sb, "twin/" + tenant + "/" + TEAM, "TEAM", null, 0, null);
      node(sb, "twin/" + tenant + "/" + TEAM + "/training", "QUEUE", "TRAINING", 0, null);
      node(sb, "twin/" + tenant + "/" + TEAM + "/batch", "QUEUE", "BATCH", 0, null);
    }
    return sb.toString();
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

  private void publishQuota() {
    String doc = quotaDocument();
    publish("quota.config", settings.cluster(), QuotaConfigDocument.newBuilder()
        .setCluster(settings.cluster()).setVersion("twin-" + config.seed())
        .setFormat(QuotaConfigFormat.YAML).setDocument(doc).setAuthor(EXECUTOR)
        .setPublishedAt(now).build());
  }

  private void publishTelemetry() {
    for (Node n : scenario.nodes()) {
      for (int g = 0; g < n.gpuCount(); g++) {
        String gpuId = n.id() + "/" + g;
        // utilisation = shares held; attributed to the largest holder (one job id per sample)
        double share = 0;
        Job holder = null;
        double largest = 0;
        for (Map.Entry<String, Double> h : gpuHolders.getOrDefault(gpuId, new TreeMap<>())
            .entrySet()) {
          share += h.getValue();
          if (h.getValue() > largest) {
            largest = h.getValue();
            holder = jobs.get(h.getKey());
          }
        }
        GpuSample.Builder s = GpuSample.newBuilder().setGpuId(gpuId)
            .setCluster(settings.cluster()).setNodeId(n.id()).setGpuIndex(g)
            .setModel(n.gpuModel()).setSampledAt(now).setState(SampleState.OK)
            .setUtilizationPct(100.0 * Math.min(1, share)).setSource(SampleSource.SIMULATOR);
        if (holder != null) {
          s.setJobId(holder.request.jobId()).setServiceId(holder.request.serviceId());
        }
        publish(TopicCatalogue.GPU_TELEMETRY, gpuId, s.build());
      }
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

  private void lifecycle(Job j, LifecycleType type, String decisionId, String message) {
    publish(TopicCatalogue.JOBS_LIFECYCLE, j.request.jobId(), JobLifecycle.newBuilder()
        .setJobId(j.request.jobId()).setCluster(settings.cluster()).setType(type)
        .setOccurredAt(now).setAssignments(new ArrayList<>(j.assignments))
        .setDecisionId(decisionId).setMessage(message)
        .setProgress(j.spec == null ? null : Math.min(1, j.progress(now) / j.spec.durationSeconds()))
        .build());
  }

  // ---------------------------------------------------------------------------------- workload

  private void submitOffline(JobSpec spec) {
    JobRequest base = spec.toRequest(spec.gpuModel().isEmpty() ? List.of()
        : List.of(spec.gpuModel()));
    JobRequest req = new JobRequest(base.jobId(), base.tenant(), TEAM, base.user(),
        base.workloadClass(), base.critical(), base.preemptible(), base.preemptionRight(), null,
        base.gpuCount(), base.gpuShare(), base.gangSize(), base.nodes(), base.allowedGpuModels(),
        now, null, base.expectedDurationSeconds(), base.checkpoint(), base.dataCacheGb());
    Job j = new Job(req, spec, -1, now);
    jobs.put(req.jobId(), j);
    pendingOffline.add(req.jobId());
    submitted++;
    tenantDemanded.merge(spec.tenant(), spec.gpuDemand() * spec.durationSeconds()
        / SECONDS_PER_HOUR, Double::sum);
    publish(TopicCatalogue.JOBS_SUBMITTED, req.jobId(), toEvent(req));
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
      List<Job> mine = live.get(k);
      while (mine.size() < target) {
        String id = String.format(Locale.ROOT, "%s-%d-%06d", svc.id(),
            config.start().getEpochSecond(), instanceSeq[k]++);
        JobRequest req = new JobRequest(id, ONLINE, ONLINE, svc.id() + "-owner",
            WorkloadClass.ONLINE_INFERENCE, false, false, true, svc.id(), svc.gpusPerInstance(),
            svc.gpuShare(), 1, 0, List.of(), now, null, 0, null, 0);
        Job j = new Job(req, null, k, now);
        jobs.put(id, j);
        mine.add(j);
        scaleUps++;
        publish(TopicCatalogue.JOBS_SUBMITTED, id, toEvent(req));
      }
      int surplus = mine.size() - keep;
      // queued ones first (newest first), then running ones
      for (int pass = 0; pass < 2 && surplus > 0; pass++) {
        for (int i = mine.size() - 1; i >= 0 && surplus > 0; i--) {
          Job j = mine.get(i);
          if (j.running == (pass == 1)) {
            mine.remove(i);
            stop(j, "scaled down");
            surplus--;
          }
        }
      }
    }
  }

  private void stop(Job j, String why) {
    if (j.running) {
      endStint(j, j.online() ? Duration.between(j.startedAt, now).toMillis() / 1000.0
          : j.spec.durationSeconds() - j.workKept);
      release(j);
    }
    j.done = true;
    lifecycle(j, LifecycleType.COMPLETED, null, why);
  }

  private void completeDue() {
    for (Job j : new ArrayList<>(running.values())) {
      if (!j.online() && !j.end().isAfter(now)) {
        stop(j, "work done");
        completed++;
        jcts.add(Duration.between(j.submittedAt, now).toSeconds() / SECONDS_PER_HOUR);
      }
    }
    for (int i = stopping.size() - 1; i >= 0; i--) {
      Object[] s = stopping.get(i);
      if (!((Instant) s[0]).isAfter(now)) {
        stopping.remove(i);
        Job j = (Job) s[1];
        if (j.running) {
          preempted(j, (String) s[2]);
        }
      }
    }
  }

  // ---------------------------------------------------------------------------------- executing

  private void applyDecisions() {
    var records = consumer.poll(java.time.Duration.ofMillis(20));
    for (ConsumerRecord<String, Object> r : records) {
      if (r.value() instanceof PlacementDecision d) {
        decisionsSeen++;
        if (d.getOutcome() == PlacementOutcome.PLACED) {
          placed(d);
        }
      } else if (r.value() instanceof Eviction e) {
        evicted(e);
      } else if (r.value() instanceof CapacityReservation c
          && c.getAction() == io.tideline.events.ReservationAction.RESERVE) {
        reservations++;
      }
    }
  }

  private void placed(PlacementDecision d) {
    Job j = jobs.get(d.getJobId());
    if (j == null || j.running || j.done) {
      return; // not ours (another run on the same broker), or a duplicate
    }
    j.running = true;
    j.startedAt = now;
    j.lastCheckpoint = null;
    j.assignments = new ArrayList<>(d.getAssignments());
    Set<String> nodes = new TreeSet<>();
    for (var a : j.assignments) {
      nodes.add(a.getNodeId());
    }
    hold(j);
    j.speed = j.online() || !d.getCrossDomain() ? 1 : 1 - slowdown;
    running.put(j.request.jobId(), j);
    if (j.firstStart == null) {
      j.firstStart = now;
      double waited = Duration.between(j.submittedAt, now).toSeconds();
      if (j.online()) {
        onlineWaits.add(waited);
      } else if (j.request.gpuCount() >= config.gpusPerNode()) {
        bigJobWaits.add(waited / 60.0);
      }
    }
    if (!j.online()) {
      pendingOffline.remove(j.request.jobId());
      offlinePlacements++;
      if (nodes.size() > 1) {
        multiNodePlacements++;
        if (d.getCrossDomain()) {
          crossDomainPlacements++;
        }
      }
    }
    lifecycle(j, LifecycleType.STARTED, d.getDecisionId(), "started by the twin");
  }

  private void evicted(Eviction e) {
    Job j = jobs.get(e.getJobId());
    if (j == null || !j.running) {
      return;
    }
    if (e.getKind() == EvictionKind.MIGRATE && !e.getTarget().isEmpty()) {
      migrations++;
      if (!j.online()) {
        endStint(j, j.progress(now) - j.workKept);
        j.workKept = j.progress(now);
      }
      release(j);
      j.running = true;
      j.startedAt = now;
      j.assignments = new ArrayList<>(e.getTarget());
      hold(j);
      running.put(j.request.jobId(), j);
      lifecycle(j, LifecycleType.RESUMED, e.getDecisionId(), "migrated by the twin");
      return;
    }
    // PREEMPT, RECLAIM, SHRINK: checkpoint (if asked and possible), then stop
    evictions++;
    preemptionDecisions.add(e.getDecisionId());
    long write = 0;
    if (e.getCheckpointFirst() && j.request.checkpoint() != null) {
      var cp = j.request.checkpoint();
      write = (long) Math.ceil(cp.stateSizeGb() / cp.storageBandwidthGbPerSec());
    }
    stopping.add(new Object[] {now.plusSeconds(Math.min(write, e.getGraceSeconds())), j,
        e.getDecisionId()});
  }

  private void preempted(Job j, String decisionId) {
    double kept = j.workKept;
    if (!j.online() && j.request.checkpoint() != null) {
      long interval = j.request.checkpoint().intervalSeconds();
      double stint = j.progress(now) - j.workKept;
      kept = j.workKept + (interval <= 0 ? 0 : Math.floor(stint / j.speed / interval)
          * interval * j.speed);
    }
    endStint(j, kept - j.workKept);
    j.workKept = kept;
    release(j);
    if (!j.online()) {
      pendingOffline.add(j.request.jobId());
    }
    lifecycle(j, LifecycleType.PREEMPTED, decisionId, "preempted; work kept to the checkpoint");
  }

  private void release(Job j) {
    running.remove(j.request.jobId());
    j.running = false;
    for (var a : j.assignments) {
      TreeMap<String, Double> h = gpuHolders.get(a.getNodeId() + "/" + a.getGpuIndex());
      if (h != null) {
        h.remove(j.request.jobId());
      }
    }
  }

  private void hold(Job j) {
    for (var a : j.assignments) {
      gpuHolders.computeIfAbsent(a.getNodeId() + "/" + a.getGpuIndex(), x -> new TreeMap<>())
          .merge(j.request.jobId(), a.getShare(), Double::sum);
    }
  }

  private void endStint(Job j, double keptWork) {
    double wall = Duration.between(j.startedAt, now).toMillis() / 1000.0;
    allocatedGpuSeconds += wall * j.gpus();
    usefulGpuSeconds += Math.max(0, j.online() ? wall : keptWork) * j.gpus();
    if (!j.online()) {
      offlineRunningSeconds += wall;
      tenantReceived.merge(j.request.tenant(), Math.max(0, keptWork) * j.gpus()
          / SECONDS_PER_HOUR, Double::sum);
    }
  }

  // -------------------------------------------------------------------------------- measuring

  private void sample() {
    double online = 0;
    double offline = 0;
    for (Job j : running.values()) {
      if (j.online()) {
        online += j.gpus();
      } else {
        offline += j.gpus();
      }
    }
    int step = scenario.demand().stepOf(now);
    double demand = 0;
    for (int k = 0; k < config.services().size(); k++) {
      demand += scenario.demand().gpus(k, step);
    }
    double occupancy = Math.min(1, (online + offline) / config.fleetGpus());
    timeline.add(new TimelineSample(now, demand, online, 0, offline, Double.NaN, occupancy, 0,
        pendingOffline.size()));
  }

  private SimResult result() {
    for (Job j : new ArrayList<>(running.values())) {
      endStint(j, j.online() ? 0 : j.progress(now) - j.workKept);
    }
    for (String id : pendingOffline) {
      Job j = jobs.get(id);
      if (j.firstStart == null && j.request.gpuCount() >= config.gpusPerNode()) {
        bigJobWaits.add(Duration.between(j.submittedAt, now).toSeconds() / 60.0);
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
    return new SimResult("tideline (through Kafka)",
        Stats.median(onlineWaits), Stats.quantile(onlineWaits, 0.95),
        nightN == 0 ? Double.NaN : night / nightN,
        troughN == 0 ? Double.NaN : trough / troughN,
        offlineRunningSeconds == 0 ? 0 : evictions / (offlineRunningSeconds / 86_400.0),
        Double.NaN,
        allocatedGpuSeconds == 0 ? 0 : usefulGpuSeconds / allocatedGpuSeconds,
        Stats.median(bigJobWaits),
        timeline.isEmpty() ? 0 : alloc / timeline.size(),
        multiNodePlacements == 0 ? 0 : crossDomainPlacements / (double) multiNodePlacements,
        offlinePlacements == 0 ? 0 : crossDomainPlacements / (double) offlinePlacements,
        Double.NaN,
        Stats.quantile(jcts, 0.5), Stats.quantile(jcts, 0.99),
        Stats.jainFairness(tenantDemanded, tenantReceived),
        useful, evictions, preemptionDecisions.size(), migrations, reservations, submitted,
        completed, scaleUps, timeline);
  }

  /** Placement decisions received (of any outcome), for the progress line and tests. */
  public long decisionsSeen() {
    return decisionsSeen;
  }

  /** Online instances and offline jobs started at least once. */
  public Map<String, Long> started() {
    Map<String, Long> out = new LinkedHashMap<>();
    out.put("online", jobs.values().stream().filter(j -> j.online() && j.firstStart != null)
        .count());
    out.put("offline", jobs.values().stream().filter(j -> !j.online() && j.firstStart != null)
        .count());
    return out;
  }

  @Override
  public void close() {
    producer.close(java.time.Duration.ofSeconds(10));
    consumer.close(java.time.Duration.ofSeconds(5));
  }
}
