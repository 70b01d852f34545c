package io.tideline.quota.stream;

import io.tideline.core.pricing.ChargeBasis;
import io.tideline.core.pricing.UsageMeter;
import io.tideline.core.pricing.UsageRecord;
import io.tideline.core.quota.AdmissionPass;
import io.tideline.core.quota.AdmissionVerdict;
import io.tideline.core.quota.Allocation;
import io.tideline.core.quota.GuaranteeChange;
import io.tideline.core.quota.GuaranteeReview;
import io.tideline.core.quota.IdleReclaimer;
import io.tideline.core.quota.IdleRecommendation;
import io.tideline.core.quota.OnlineFloors;
import io.tideline.core.quota.QuotaDefinition;
import io.tideline.core.quota.QuotaLedger;
import io.tideline.core.quota.QuotaNode;
import io.tideline.core.trace.TraceEntry;
import io.tideline.core.quota.UtilisationSample;
import io.tideline.core.quota.Verdict;
import io.tideline.core.quota.WaitingJob;
import io.tideline.events.BillingUsage;
import io.tideline.events.ClockTick;
import io.tideline.events.GpuSample;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.PricingKind;
import io.tideline.events.QuotaChange;
import io.tideline.events.QuotaChangeKind;
import io.tideline.events.QuotaConfigDocument;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.ReclaimAction;
import io.tideline.events.RuleTraceEntry;
import io.tideline.events.SampleState;
import io.tideline.events.SlotClass;
import io.tideline.events.SlotForecast;
import io.tideline.platform.intake.JobRequests;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.quota.config.QuotaPolicy;
import io.tideline.quota.definition.QuotaDocuments;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.jboss.logging.Logger;

/**
 * Stage 2: the single writer of a cluster's quota (every input is keyed by the cluster, so all
 * decisions are totally ordered). It holds the definition in force, the {@link QuotaLedger}, the
 * jobs (waiting, admitted, running) and the billing days in changelogged stores, calls the core for
 * every decision with {@code now} taken from event time (the largest event time seen: clock ticks,
 * submissions, lifecycle facts, samples), and publishes verdicts, queue states, billing pieces,
 * policy changes and reclaim recommendations.
 *
 * <p>The in-memory copies are loaded from the stores in {@link #init} and written back after each
 * record, so a restart or a rebuild from the changelog resumes exactly where it stopped.
 */
final class QuotaWriter implements Processor<String, byte[], String, SpecificRecord> {

  private static final Logger LOG = Logger.getLogger(QuotaWriter.class);
  static final String K_DEFINITION = "definition";
  static final String K_LEDGER = "ledger";
  static final String K_NOW = "now";
  static final String K_PEAKS = "peaks";
  static final String K_INDEX = "index";

  /** The definition in force as stored: its text is re-parsed on load. */
  record DefinitionEntry(String version, String source, String text) {}

  /** Which jobs are waiting and which are running (so no pass scans every job ever seen). */
  record Index(TreeSet<String> waiting, TreeSet<String> running) {
    Index {
      waiting = waiting == null ? new TreeSet<>() : new TreeSet<>(waiting);
      running = running == null ? new TreeSet<>() : new TreeSet<>(running);
    }
  }

  private final QuotaPolicy policy;
  private final Deserializer<Object> avro;
  private final QuotaListener listener;
  private final AdmissionPass pass;
  private final GuaranteeReview review;
  private final OnlineFloors floors;
  private final IdleReclaimer reclaimer;
  private final UsageMeter meter;

  private ProcessorContext<String, SpecificRecord> context;
  private KeyValueStore<String, String> state;
  private KeyValueStore<String, String> jobs;
  private KeyValueStore<String, String> billing;

  private DefinitionEntry definitionEntry;
  /** The definition as written (document or bootstrap file). */
  private QuotaDefinition declared;
  /** The definition in force: {@link #declared} with the online guarantees applied (Q5). */
  private QuotaDefinition definition;
  private QuotaLedger ledger;
  private Instant now;
  private TreeMap<String, Double> peaks;
  private Index index;
  private long recordTimestamp;

  QuotaWriter(QuotaPolicy policy, Deserializer<Object> avro, QuotaListener listener) {
    this.policy = policy;
    this.avro = avro;
    this.listener = listener;
    this.pass = new AdmissionPass(policy.quota());
    this.review = new GuaranteeReview(policy.quota());
    this.floors = new OnlineFloors(policy.quota());
    this.reclaimer = new IdleReclaimer(policy.idle());
    this.meter = new UsageMeter(policy.pricing());
  }

  @Override
  public void init(ProcessorContext<String, SpecificRecord> context) {
    this.context = context;
    this.state = context.getStateStore(QuotaTopology.STATE_STORE);
    this.jobs = context.getStateStore(QuotaTopology.JOBS_STORE);
    this.billing = context.getStateStore(QuotaTopology.BILLING_STORE);
    // Load what the stores (restored from their changelogs) hold.
    definitionEntry = Json.read(state.get(K_DEFINITION), DefinitionEntry.class);
    QuotaDocuments.Parsed parsed = definitionEntry == null ? null : parseOrNull(definitionEntry);
    declared = parsed == null ? QuotaDefinition.of("none", List.of()) : parsed.definition();
    LedgerSnapshot snap = Json.read(state.get(K_LEDGER), LedgerSnapshot.class);
    ledger = snap != null ? snap.restore()
        : QuotaLedger.empty(parsed == null ? 0 : parsed.fleetGpus(),
            policy.quota().fairShareHalfLife());
    String n = state.get(K_NOW);
    now = n == null ? Instant.EPOCH : Instant.parse(n);
    @SuppressWarnings("unchecked")
    Map<String, Double> p = Json.read(state.get(K_PEAKS), Map.class);
    peaks = p == null ? new TreeMap<>() : new TreeMap<>(p);
    // The floors in force are a function of (declared definition, peaks): recompute, never store.
    definition = floors.apply(declared, ledger.fleetGpus(), peaks).definition();
    Index i = Json.read(state.get(K_INDEX), Index.class);
    index = i == null ? new Index(null, null) : i;
  }

  @Override
  public void process(Record<String, byte[]> record) {
    recordTimestamp = record.timestamp();
    QuotaLedger ledgerBefore = ledger;
    String indexBefore = Json.write(index);
    Routed in = Routed.unpack(record.value());
    Object event;
    try {
      event = avro.deserialize(in.topic, in.bytes);
    } catch (RuntimeException e) {
      LOG.errorf("skipping an input of %s that passed the gate but does not decode: %s", in.topic,
          e.getMessage());
      return;
    }
    advance(eventTime(event));
    if (definitionEntry == null && policy.bootstrap() != null) {
      bootstrap(now);
    }
    // 1. Dispatch by input; each handler advances the logical clock from its event time.
    switch (in.topic) {
      case QuotaTopics.CONFIG -> onConfig((QuotaConfigDocument) event);
      case TopicCatalogue.JOBS_SUBMITTED -> onSubmitted((JobSubmitted) event);
      case TopicCatalogue.JOBS_LIFECYCLE -> onLifecycle((JobLifecycle) event);
      case TopicCatalogue.FORECAST_SLOTS -> onForecast((SlotForecast) event);
      case TopicCatalogue.GPU_TELEMETRY -> onSample((GpuSample) event);
      case TopicCatalogue.CLUSTER_CLOCK -> onTick((ClockTick) event);
      default -> LOG.warnf("unexpected input topic %s", in.topic);
    }
    // 2. Persist the shared state that changed (jobs and billing days are written as they change);
    //    a telemetry sample or an idle tick must not rewrite the ledger's changelog entry.
    if (ledger != ledgerBefore || state.get(K_LEDGER) == null) {
      state.put(K_LEDGER, Json.write(LedgerSnapshot.of(ledger, now)));
    }
    String indexAfter = Json.write(index);
    if (!indexAfter.equals(indexBefore)) {
      state.put(K_INDEX, indexAfter);
    }
    state.put(K_NOW, now.toString());
  }

  /** The event time an input carries in its own fields (never the wall clock). */
  private static Instant eventTime(Object e) {
    if (e instanceof QuotaConfigDocument d) {
      return d.getPublishedAt();
    } else if (e instanceof JobSubmitted s) {
      return s.getSubmittedAt();
    } else if (e instanceof JobLifecycle l) {
      return l.getOccurredAt();
    } else if (e instanceof SlotForecast f) {
      return f.getComputedAt();
    } else if (e instanceof GpuSample g) {
      return g.getSampledAt();
    } else if (e instanceof ClockTick t) {
      return t.getTime();
    }
    return null;
  }

  // ---------------------------------------------------------------- definitions (Q2)

  private void bootstrap(Instant at) {
    QuotaPolicy.BootstrapDefinition b = policy.bootstrap();
    try {
      QuotaDocuments.Parsed parsed = QuotaDocuments.parse(b.text(), null);
      apply(parsed, new DefinitionEntry(parsed.definition().version(), b.source(), b.text()),
          max(now, at));
    } catch (QuotaDocuments.InvalidDefinition e) {
      throw new IllegalStateException("bootstrap quota definition " + b.source() + " is invalid: "
          + e.getMessage(), e);
    }
  }

  private void onConfig(QuotaConfigDocument d) {
    advance(d.getPublishedAt());
    if (!policy.cluster().equals(d.getCluster())) {
      LOG.infof("ignoring quota definition %s for cluster %s", d.getVersion(), d.getCluster());
      return;
    }
    if (definitionEntry != null && definitionEntry.version().equals(d.getVersion())
        && definitionEntry.text().equals(d.getDocument())) {
      return; // a replay or a re-publication: nothing changes
    }
    QuotaDocuments.Parsed parsed;
    try {
      parsed = QuotaDocuments.parse(d.getDocument(), d.getVersion());
    } catch (QuotaDocuments.InvalidDefinition e) {
      LOG.errorf("definition %s passed the gate but is invalid: %s", d.getVersion(), e.getMessage());
      return;
    }
    apply(parsed, new DefinitionEntry(d.getVersion(), QuotaTopics.CONFIG
        + (d.getAuthor() == null ? "" : " by " + d.getAuthor()), d.getDocument()), now);
    admissionPass(null);
  }

  private void apply(QuotaDocuments.Parsed parsed, DefinitionEntry entry, Instant at) {
    String old = definitionEntry == null ? null : definitionEntry.version();
    definitionEntry = entry;
    declared = parsed.definition();
    ledger = ledger.withFleet(parsed.fleetGpus());
    OnlineFloors.Applied applied = floors.apply(declared, parsed.fleetGpus(), peaks);
    definition = applied.definition();
    now = at;
    state.put(K_DEFINITION, Json.write(entry));
    forward(policy.cluster(), QuotaChange.newBuilder()
        .setKind(QuotaChangeKind.DEFINITION_APPLIED)
        .setSubject(policy.cluster())
        .setOldVersion(old)
        .setNewVersion(entry.version())
        .setReason("definition " + entry.version() + " in force" + (old == null ? "" : " (was "
            + old + ")") + ": " + definition.nodes().size() + " nodes, " + definition.queues().size()
            + " queues, fleet " + parsed.fleetGpus() + " GPUs" + appliedFloors(applied))
        .setSource(entry.source())
        .setAt(now)
        .setPolicyVersion(policyVersion())
        .build());
    for (QuotaNode q : definition.queues()) {
      forward(q.path(), QuotaViews.queueState(definition, ledger, q, now, policyVersion()));
    }
  }

  // ---------------------------------------------------------------- admission (Q2–Q6, W4, P3)

  private void onSubmitted(JobSubmitted e) {
    advance(e.getSubmittedAt());
    if (jobs.get(e.getJobId()) != null) {
      return; // a replayed submission: its verdict was given
    }
    jobs.put(e.getJobId(), Json.write(JobEntry.waiting(JobRequests.fromEvent(e))));
    index.waiting().add(e.getJobId());
    admissionPass(e.getJobId());
  }

  /**
   * Serves the waiting jobs in fair-share order. Borrowers reclaimed for a guaranteed job go back
   * to waiting (preempted now: P3 cooldown) and the pass runs again.
   */
  private void admissionPass(String trigger) {
    String mustPublish = trigger;
    for (int round = 0; round < 16 && !index.waiting().isEmpty(); round++) {
      // 1. The waiting jobs with their P3 history.
      List<WaitingJob> waiting = new ArrayList<>();
      for (String id : index.waiting()) {
        JobEntry j = job(id);
        waiting.add(new WaitingJob(j.request(), j.lastPreemptedAt()));
      }
      QuotaLedger before = ledger;
      AdmissionPass.Result r = pass.run(waiting, definition, ledger, now);
      ledger = r.ledger();
      // 2. Record and publish each verdict that is new or changed.
      List<String> victims = new ArrayList<>();
      for (AdmissionVerdict v : r.verdicts()) {
        JobEntry j = job(v.jobId());
        VerdictView view = VerdictView.of(v, j.request().tenant());
        JobEntry.Status s = v.admitted() ? JobEntry.Status.ADMITTED
            : v.verdict() == Verdict.REJECTED ? JobEntry.Status.REJECTED : JobEntry.Status.WAITING;
        ChargeBasis basis = v.verdict() == Verdict.GUARANTEED ? ChargeBasis.RESERVED
            : v.verdict() == Verdict.SHARED ? ChargeBasis.ON_DEMAND : null;
        boolean publish = v.jobId().equals(mustPublish) || !view.sameOutcome(j.verdict());
        jobs.put(v.jobId(), Json.write(j.withVerdict(view, s, basis)));
        if (s != JobEntry.Status.WAITING) {
          index.waiting().remove(v.jobId());
        }
        if (publish) {
          forward(v.jobId(), verdict(v, j));
          listener.verdict(v.verdict().name());
        }
        victims.addAll(v.reclaimJobIds());
      }
      // 3. Reclaimed borrowers: billed up to now, waiting again with their preemption time.
      for (String victim : victims) {
        JobEntry j = meterUntil(job(victim), now);
        jobs.put(victim, Json.write(j.preempted(now)));
        index.running().remove(victim);
        index.waiting().add(victim);
      }
      emitStates(before);
      if (victims.isEmpty()) {
        return;
      }
      mustPublish = null;
    }
  }

  private QuotaVerdict verdict(AdmissionVerdict v, JobEntry j) {
    double gpus = v.admitted() ? v.guaranteedGpus() + v.borrowedGpus() : j.request().gpuDemand();
    boolean preemptible = v.admitted() ? v.preemptible() : j.request().preemptible();
    double fairShare = v.queue() == null ? 0 : ledger.decayedUsage(v.queue(), now) / 3600.0;
    List<RuleTraceEntry> trace = new ArrayList<>();
    for (TraceEntry t : v.trace()) {
      trace.add(trace(t));
    }
    if (!v.reclaimJobIds().isEmpty()) {
      trace.add(new RuleTraceEntry(v.jobId(), "Q3 reclaim for guarantee", "reclaim",
          "borrowers to preempt: " + String.join(", ", v.reclaimJobIds())));
    }
    return QuotaVerdict.newBuilder()
        .setJobId(v.jobId())
        .setTenant(j.request().tenant())
        .setQueue(v.queue() == null ? "" : v.queue())
        .setDecidedAt(v.decidedAt())
        .setVerdict(io.tideline.events.Verdict.valueOf(v.verdict().name()))
        .setGpus(gpus)
        .setPreemptible(preemptible)
        .setPreemptionRightGranted(v.preemptionRightGranted())
        .setReason(v.reason())
        .setUnblockHint(v.unblockedBy() == null || v.unblockedBy().isEmpty() ? null
            : v.unblockedBy())
        .setFairShareUsage(fairShare)
        .setPolicyVersion(v.policyVersion())
        .setTrace(trace)
        .build();
  }

  // ---------------------------------------------------------------- lifecycle, metering (B1)

  private void onLifecycle(JobLifecycle l) {
    advance(l.getOccurredAt());
    if (!policy.cluster().equals(l.getCluster())) {
      return;
    }
    JobEntry j = job(l.getJobId());
    if (j == null) {
      return; // not a job quota knows (submitted before this service, or refused)
    }
    String id = l.getJobId();
    Instant at = l.getOccurredAt();
    switch (l.getType()) {
      case STARTED, RESUMED -> {
        if (j.status() == JobEntry.Status.ADMITTED) {
          jobs.put(id, Json.write(j.with(JobEntry.Status.RUNNING).metered(at)));
          index.running().add(id);
        }
      }
      case COMPLETED, FAILED -> {
        j = meterUntil(j, at);
        QuotaLedger before = ledger;
        ledger = ledger.release(id, now);
        jobs.put(id, Json.write(j.stopped(JobEntry.Status.DONE)));
        index.running().remove(id);
        index.waiting().remove(id);
        emitStates(before);
        admissionPass(null);
      }
      case PREEMPTED -> {
        if (ledger.allocation(id).isEmpty()) {
          return; // already reclaimed by quota itself and waiting again
        }
        j = meterUntil(j, at);
        QuotaLedger before = ledger;
        ledger = ledger.preempt(id, now);
        jobs.put(id, Json.write(j.preempted(at)));
        index.running().remove(id);
        index.waiting().add(id);
        emitStates(before);
        admissionPass(null);
      }
      default -> { }
    }
  }

  /** Bills a running job's usage from where the last piece ended up to {@code until}. */
  private JobEntry meterUntil(JobEntry j, Instant until) {
    if (j == null || j.meteredUntil() == null || !until.isAfter(j.meteredUntil())
        || j.basis() == null) {
      return j;
    }
    String id = j.request().jobId();
    double gpus = ledger.allocation(id).map(Allocation::gpus)
        .orElse(j.verdict() == null ? j.request().gpuDemand()
            : j.verdict().guaranteedGpus() + j.verdict().borrowedGpus());
    String model = j.request().allowedGpuModels().isEmpty() ? "any"
        : j.request().allowedGpuModels().get(0);
    String queue = j.verdict() == null || j.verdict().queue() == null ? "" : j.verdict().queue();
    List<UsageRecord> pieces = meter.meter(j.request().tenant(), id, model, gpus, j.basis(),
        j.meteredUntil(), until, policy.slots());
    Instant end = j.meteredUntil();
    TreeMap<String, BillingDay> days = new TreeMap<>(); // one write per day: queries see whole runs
    for (UsageRecord u : pieces) {
      forward(u.tenant(), BillingUsage.newBuilder()
          .setTenant(u.tenant())
          .setQueue(queue)
          .setJobId(u.jobId())
          .setFrom(u.from())
          .setTo(u.to())
          .setGpuSeconds(u.gpuSeconds())
          .setGpuModel(u.gpuModel())
          .setSlotClass(SlotClass.valueOf(u.slotClass().name()))
          .setPricing(PricingKind.valueOf(u.basis().name()))
          .setPricePerGpuHour(u.pricePerGpuHour().doubleValue())
          .setAmount(u.amount().doubleValue())
          .setCurrency(policy.currency())
          .build());
      String day = u.from().atOffset(ZoneOffset.UTC).toLocalDate().toString();
      String key = u.tenant() + "/" + day;
      BillingDay b = days.computeIfAbsent(key, k -> Optional.ofNullable(
          Json.read(billing.get(k), BillingDay.class))
          .orElse(BillingDay.empty(u.tenant(), day, policy.currency())));
      days.put(key, b.plus(id, u.slotClass().name(), u.gpuSeconds(), u.amount()));
      end = u.to();
    }
    days.forEach((k, b) -> billing.put(k, Json.write(b)));
    JobEntry next = j.metered(end);
    jobs.put(id, Json.write(next));
    return next;
  }

  // ---------------------------------------------------------------- guarantee review (Q5)

  /**
   * Q5: a new historical peak moves the service's guarantee; the queue that serves the service
   * (the definition's {@code services}) gets it as its floor in force at once (locked, ancestors
   * grown to hold it), each change is audited on {@code quota.changes} with the old and new
   * guarantee and floor, the queue states follow, and waiting jobs are re-admitted against the
   * new floors.
   */
  private void onForecast(SlotForecast f) {
    advance(f.getComputedAt());
    String service = f.getServiceId();
    double peak = f.getHistoricalPeak();
    if ("*".equals(service) || !(peak > 0) || Double.valueOf(peak).equals(peaks.get(service))) {
      return; // the fleet profile, no peak yet, or the same peak again
    }
    // 1. Which guarantees moved (core review), then the floors in force recomputed from them.
    List<GuaranteeChange> changes = review.onNewPeak(peaks, service, peak, now);
    peaks.put(service, peak);
    state.put(K_PEAKS, Json.write(peaks));
    QuotaDefinition before = definition;
    OnlineFloors.Applied applied = floors.apply(declared, ledger.fleetGpus(), peaks);
    definition = applied.definition();
    Map<String, OnlineFloors.FloorChange> moved = new TreeMap<>();
    OnlineFloors.changes(before, definition).forEach(c -> moved.put(c.path(), c));
    // 2. One audit event per moved guarantee, naming the queue floor it moved.
    for (GuaranteeChange c : changes) {
      Optional<QuotaNode> queue = declared.queueServing(c.service());
      OnlineFloors.FloorChange floor = queue.map(q -> moved.get(q.path())).orElse(null);
      String applies;
      if (queue.isEmpty()) {
        applies = "; no queue serves " + c.service() + ": floors unchanged";
      } else if (floor == null) {
        applies = "; floor of " + queue.get().path() + " stays " + fmt(definition.node(
            queue.get().path()).orElseThrow().guaranteedGpus());
      } else {
        applies = "; floor of " + floor.path() + " " + fmt(floor.oldFloorGpus()) + " → "
            + fmt(floor.newFloorGpus()) + " applied (locked)" + ancestors(moved, floor.path())
            + "; shared pool " + fmt(Math.max(0, ledger.fleetGpus() - definition.queueFloorSum()))
            + " GPUs";
      }
      double queueFloor = queue.map(q -> definition.node(q.path()).orElseThrow()
          .guaranteedGpus()).orElse(0.0);
      forward(c.service(), QuotaChange.newBuilder()
          .setKind(QuotaChangeKind.GUARANTEE_CHANGED)
          .setSubject(c.service())
          .setOldGuaranteeGpus(c.oldGuaranteeGpus())
          .setNewGuaranteeGpus(c.newGuaranteeGpus())
          .setOldPeakGpus(Double.isNaN(c.oldPeakGpus()) ? null : c.oldPeakGpus())
          .setNewPeakGpus(Double.isNaN(c.newPeakGpus()) ? null : c.newPeakGpus())
          .setReason("Q5 review: " + c.reason() + " (" + Math.round(
              policy.quota().onlineGuaranteeFraction() * 100) + "% of the historical peak)"
              + applies)
          .setSource(TopicCatalogue.FORECAST_SLOTS)
          .setAt(c.at())
          .setPolicyVersion(policyVersion())
          .setQueue(queue.map(QuotaNode::path).orElse(null))
          .setOldFloorGpus(queue.isEmpty() ? null
              : floor == null ? queueFloor : floor.oldFloorGpus())
          .setNewFloorGpus(queue.isEmpty() ? null : queueFloor)
          .build());
    }
    // 3. The queues whose floor moved publish their state; waiting jobs meet the new floors.
    if (!moved.isEmpty()) {
      for (QuotaNode q : definition.queues()) {
        if (moved.containsKey(q.path())) {
          forward(q.path(), QuotaViews.queueState(definition, ledger, q, now, policyVersion()));
        }
      }
      admissionPass(null);
    }
  }

  private static String ancestors(Map<String, OnlineFloors.FloorChange> moved, String queue) {
    List<String> up = new ArrayList<>();
    moved.values().stream().filter(m -> queue.startsWith(m.path() + "/")).forEach(m -> up.add(
        m.path() + " " + fmt(m.oldFloorGpus()) + " → " + fmt(m.newFloorGpus())));
    return up.isEmpty() ? "" : " (ancestors grown to hold it: " + String.join(", ", up) + ")";
  }

  /** The floors a new definition gets from the peaks already known (Q5), for its audit event. */
  private static String appliedFloors(OnlineFloors.Applied applied) {
    List<String> q = applied.trace().stream().filter(t -> t.rule().equals("Q5 online floor"))
        .map(t -> t.subject() + " " + t.outcome()).toList();
    return q.isEmpty() ? "" : "; online floors from known peaks: " + String.join(", ", q);
  }

  private static String fmt(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }

  // ---------------------------------------------------------------- idle reclamation (Q7)

  private void onSample(GpuSample s) {
    advance(s.getSampledAt());
    if (s.getJobId() == null || s.getState() != SampleState.OK || s.getUtilizationPct() == null
        || !policy.cluster().equals(s.getCluster())) {
      return;
    }
    JobEntry j = job(s.getJobId());
    if (j == null || j.status() != JobEntry.Status.RUNNING) {
      return;
    }
    // Per instant, the job's utilisation is the mean over its GPUs sampled at that instant.
    SortedMap<Long, double[]> samples = new TreeMap<>(j.samples());
    double[] acc = samples.computeIfAbsent(s.getSampledAt().toEpochMilli(), k -> new double[2]);
    acc[0] += s.getUtilizationPct() / 100.0;
    acc[1] += 1;
    long keepFrom = now.minus(policy.idle().window()).minus(policy.idle().maxSampleGap())
        .toEpochMilli();
    samples.headMap(keepFrom).clear();
    jobs.put(s.getJobId(), Json.write(j.withSamples(samples)));
  }

  private void onTick(ClockTick t) {
    advance(t.getTime());
    if (!policy.cluster().equals(t.getCluster())) {
      return;
    }
    for (String id : List.copyOf(index.running())) {
      JobEntry j = job(id);
      // 1. B1: bill long runs at least every metering interval.
      if (j.meteredUntil() != null && Duration.between(j.meteredUntil(), now)
          .compareTo(policy.meteringInterval()) >= 0) {
        j = meterUntil(j, now);
      }
      // 2. Q7: assess the utilisation window ending now.
      assessIdle(j);
    }
    // 3. Time passing can unblock waiting jobs (a P3 cooldown ends).
    admissionPass(null);
  }

  private void assessIdle(JobEntry j) {
    String id = j.request().jobId();
    Optional<Allocation> a = ledger.allocation(id);
    if (a.isEmpty() || a.get().gpus() < 1) {
      return;
    }
    int gpus = (int) Math.ceil(a.get().gpus() - 1e-6);
    Duration remaining = j.request().expectedDurationSeconds() <= 0 ? null
        : Duration.ofSeconds(Math.max(0, j.request().expectedDurationSeconds()
            - Duration.between(a.get().admittedAt(), now).toSeconds()));
    List<UtilisationSample> samples = new ArrayList<>();
    j.samples().forEach((at, acc) -> samples.add(
        new UtilisationSample(Instant.ofEpochMilli(at), acc[0] / acc[1])));
    IdleRecommendation rec = reclaimer.assess(id, gpus, remaining, samples, now);
    if (rec.action() == IdleRecommendation.Action.KEEP) {
      if (j.lastReclaim() != null) {
        jobs.put(id, Json.write(j.withLastReclaim(null)));
      }
      return;
    }
    String key = rec.action() + ":" + rec.recommendedGpus();
    if (key.equals(j.lastReclaim())) {
      return; // already recommended
    }
    List<RuleTraceEntry> trace = rec.trace().stream().map(QuotaWriter::trace).toList();
    forward(id, QuotaReclaim.newBuilder()
        .setJobId(id)
        .setTenant(j.request().tenant())
        .setQueue(a.get().queue())
        .setAction(ReclaimAction.valueOf(rec.action().name()))
        .setCurrentGpus(rec.currentGpus())
        .setRecommendedGpus(rec.recommendedGpus())
        .setPeakUtilisation(rec.peakUtilisation())
        .setEtaBeforeSeconds(rec.etaBefore() == null ? null : rec.etaBefore().toSeconds())
        .setEtaAfterSeconds(rec.etaAfter() == null ? null : rec.etaAfter().toSeconds())
        .setReason(rec.reason())
        .setDecidedAt(now)
        .setPolicyVersion(policyVersion())
        .setTrace(trace)
        .build());
    jobs.put(id, Json.write(j.withLastReclaim(key)));
  }

  // ---------------------------------------------------------------- helpers

  private void emitStates(QuotaLedger before) {
    for (QuotaNode q : definition.queues()) {
      if (!before.usage(q.path()).equals(ledger.usage(q.path()))) {
        forward(q.path(), QuotaViews.queueState(definition, ledger, q, now, policyVersion()));
      }
    }
  }

  private String policyVersion() {
    return policy.quota().rulesVersion() + "/" + definition.version();
  }

  private JobEntry job(String id) {
    return Json.read(jobs.get(id), JobEntry.class);
  }

  private void advance(Instant t) {
    now = max(now, t);
  }

  private static Instant max(Instant a, Instant b) {
    return b != null && b.isAfter(a) ? b : a;
  }

  /** Outputs carry the input record's timestamp (Streams' convention; retention works on it). */
  private void forward(String key, SpecificRecord value) {
    context.forward(new Record<>(key, value, recordTimestamp));
  }

  private static RuleTraceEntry trace(TraceEntry t) {
    return new RuleTraceEntry(t.subject(), t.rule(), t.outcome(), t.detail());
  }

  private static QuotaDocuments.Parsed parseOrNull(DefinitionEntry e) {
    try {
      return QuotaDocuments.parse(e.text(), null);
    } catch (QuotaDocuments.InvalidDefinition ex) {
      LOG.errorf("stored definition %s no longer parses: %s", e.version(), ex.getMessage());
      return null;
    }
  }
}
