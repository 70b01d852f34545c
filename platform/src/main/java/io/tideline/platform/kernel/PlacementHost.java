package io.tideline.platform.kernel;

import io.tideline.core.cluster.Reservation;
import io.tideline.core.cluster.TopologyLevel;
import io.tideline.core.cluster.state.Admission;
import io.tideline.core.cluster.state.Binding;
import io.tideline.core.cluster.state.ClusterState;
import io.tideline.core.cluster.state.Hold;
import io.tideline.core.cluster.state.JobFacts;
import io.tideline.core.cluster.state.NodeRecord;
import io.tideline.core.fragmentation.PastMigration;
import io.tideline.core.kernel.Inbox;
import io.tideline.core.kernel.Journal;
import io.tideline.core.kernel.Step;
import io.tideline.core.kernel.Table;
import io.tideline.core.kernel.Tick;
import io.tideline.core.model.JobRequest;
import io.tideline.core.scheduling.Evicting;
import io.tideline.core.scheduling.PendingRequest;
import io.tideline.core.scheduling.PlacementEffect;
import io.tideline.core.scheduling.PlacementInput;
import io.tideline.core.scheduling.PlacementKernel;
import io.tideline.core.scheduling.PlacementMeta;
import io.tideline.core.scheduling.PlacementPolicy;
import io.tideline.core.scheduling.PlacementState;
import io.tideline.core.scheduling.QueueMark;
import io.tideline.core.scheduling.ReclaimNamed;
import io.tideline.core.scheduling.SlotWindow;
import io.tideline.core.slots.SlotClass;
import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockTick;
import io.tideline.events.DemandShape;
import io.tideline.events.DomainLevel;
import io.tideline.events.Eviction;
import io.tideline.events.FragmentationReport;
import io.tideline.events.FragmentationTrigger;
import io.tideline.events.HardwarePreference;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LedgerHold;
import io.tideline.events.LedgerInput;
import io.tideline.events.LedgerReservation;
import io.tideline.events.NodeFragmentationFigure;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionRequest;
import io.tideline.events.PreemptionTrigger;
import io.tideline.events.QueuePosition;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.ReservedGpuHolder;
import io.tideline.events.ResourceRequest;
import io.tideline.events.RuleTraceEntry;
import io.tideline.events.SlotForecast;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.state.PlacementMetaState;
import io.tideline.state.StoredAdmission;
import io.tideline.state.StoredBinding;
import io.tideline.state.StoredEvicting;
import io.tideline.state.StoredFacts;
import io.tideline.state.StoredInboxEntry;
import io.tideline.state.StoredJob;
import io.tideline.state.StoredMigration;
import io.tideline.state.StoredNode;
import io.tideline.state.StoredAnswerVictim;
import io.tideline.state.StoredParkedAnswer;
import io.tideline.state.StoredReclaimNamed;
import io.tideline.state.NamedReclaimKind;
import io.tideline.state.ParkedTrigger;
import io.tideline.state.StoredPending;
import io.tideline.state.StoredQueueMark;
import io.tideline.state.StoredSlotWindow;
import io.tideline.state.EvictingTrigger;
import io.tideline.state.PendingStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiFunction;
import org.apache.avro.specific.SpecificRecord;

/**
 * The placement kernel behind its contracts: decodes an input record into a
 * {@link PlacementInput}, runs the step, encodes the effects as records and the changed state as
 * store records (and back on restore). Pure: no Kafka client, no store — placement-svc's ledger
 * processor and the simulator's in-process twin both call exactly this, so the twin runs the code
 * that ships.
 */
public final class PlacementHost implements KernelHost.Stored<PlacementState> {


  private final PlacementKernel kernel;
  private final String cluster;

  public PlacementHost(PlacementPolicy policy) {
    this.kernel = new PlacementKernel(policy);
    this.cluster = policy.cluster();
  }

  public PlacementKernel kernel() {
    return kernel;
  }

  /** The input topics, in the order of the service's input enum. */
  public static List<String> inputTopics() {
    return List.of(TopicCatalogue.CLUSTER_INVENTORY, TopicCatalogue.JOBS_SUBMITTED,
        TopicCatalogue.QUOTA_VERDICTS, TopicCatalogue.JOBS_LIFECYCLE,
        TopicCatalogue.CAPACITY_RESERVATIONS, TopicCatalogue.CLUSTER_CLOCK,
        TopicCatalogue.FORECAST_SLOTS, TopicCatalogue.PREEMPTION_DECISIONS,
        TopicCatalogue.QUOTA_RECLAIMS);
  }

  // ------------------------------------------------------------------------------ inputs

  /** The kernel input a record of {@code topic} carries; {@code null} for an unknown topic. */
  public PlacementInput decode(String topic, SpecificRecord value) {
    if (value instanceof NodeInventory n) {
      return new PlacementInput.Inventory(ClusterMapping.node(n));
    } else if (value instanceof JobSubmitted s) {
      return new PlacementInput.Submission(ClusterMapping.job(s));
    } else if (value instanceof QuotaVerdict v) {
      return new PlacementInput.Verdict(v.getJobId(), ClusterMapping.admission(v));
    } else if (value instanceof JobLifecycle l) {
      return new PlacementInput.Lifecycle(ClusterMapping.lifecycle(l));
    } else if (value instanceof CapacityReservation c) {
      return new PlacementInput.ReservationCommand(c.getReservationId(), c.getServiceId(),
          PlacementInput.ReservationCommand.Action.valueOf(c.getAction().name()), c.getGpus(),
          c.getValidFrom(), c.getValidUntil(), c.getIssuedAt(),
          c.getExpectedGpus() == null ? c.getGpus() : c.getExpectedGpus());
    } else if (value instanceof ClockTick t) {
      return new PlacementInput.ClockTick(new Tick(t.getTime(), t.getCluster()));
    } else if (value instanceof SlotForecast f) {
      SlotClass c = f.getSlotClass() == io.tideline.events.SlotClass.UNKNOWN ? null
          : SlotClass.valueOf(f.getSlotClass().name());
      return new PlacementInput.Forecast(f.getServiceId(), f.getSlotStart(), f.getSlotEnd(), c,
          f.getComputedAt());
    } else if (value instanceof PreemptionDecision d) {
      return answer(d);
    } else if (value instanceof QuotaReclaim q) {
      return reclaim(q);
    }
    return null;
  }

  /**
   * Quota's reclaim as the jobs it names (ADR 0029): the idle job for SHRINK/RECLAIM, each
   * borrower for GUARANTEE. An action this version does not know is refused (dead-lettered).
   */
  public static PlacementInput.Reclaim reclaim(QuotaReclaim q) {
    if (q.getAction() == io.tideline.events.ReclaimAction.UNKNOWN) {
      throw new IllegalArgumentException("reclaim " + q.getReclaimId() + " of " + q.getJobId()
          + " asks an action this version does not know");
    }
    PlacementInput.Reclaim.Action action =
        PlacementInput.Reclaim.Action.valueOf(q.getAction().name());
    List<String> named = new ArrayList<>();
    if (action == PlacementInput.Reclaim.Action.GUARANTEE) {
      q.getBorrowers().forEach(b -> named.add(b.getJobId()));
    } else {
      named.add(q.getJobId());
    }
    return new PlacementInput.Reclaim(q.getJobId(), action, named,
        action == PlacementInput.Reclaim.Action.SHRINK ? q.getRecommendedGpus() : 0,
        q.getReclaimId() == null ? "" : q.getReclaimId(), q.getDecidedAt());
  }

  /** Preemption's decision as the answer placement applies. */
  public static PlacementInput.PreemptionAnswer answer(PreemptionDecision d) {
    List<PlacementInput.AnswerVictim> victims = new ArrayList<>();
    d.getVictims().forEach(v -> victims.add(new PlacementInput.AnswerVictim(v.getJobId(),
        v.getShrinkToGpus() == null ? 0 : v.getShrinkToGpus())));
    String trigger = d.getTrigger() == null ? "UNPLACEABLE" : d.getTrigger();
    return new PlacementInput.PreemptionAnswer(d.getDecisionId(), d.getRequestId(),
        d.getPreemptorJobId(), PlacementInput.PreemptionAnswer.Trigger.valueOf(trigger),
        d.getOutcome() == io.tideline.events.PreemptionOutcome.PREEMPT, victims,
        d.getPreemptorScore(), d.getLedgerVersion(), d.getDecidedAt(), d.getCluster());
  }

  /**
   * Offers one record: decode, step, encode. {@code now} is the cluster time the caller has
   * reached; {@code envelope} is the record as read (stored while it waits in the inbox), or
   * {@code null} where nothing is persisted (the twin).
   */
  @Override
  public PlacementState empty() {
    return PlacementState.empty();
  }

  @Override
  public Instant clock(PlacementState state) {
    return state.meta().now();
  }

  @Override
  public Map<String, Class<? extends SpecificRecord>> storeTypes() {
    return STORE_TYPES;
  }

  @Override
  public HostResult<PlacementState> offer(Instant now, PlacementState state, String topic,
      SpecificRecord value, LedgerInput envelope) {
    PlacementInput in = decode(topic, value);
    if (in == null) {
      throw new IllegalArgumentException("not an input of placement: " + topic);
    }
    return offer(now, state, in, envelope);
  }

  /** Offers one decoded input. */
  public HostResult<PlacementState> offer(Instant now, PlacementState state,
      PlacementInput in, LedgerInput envelope) {
    Step<PlacementState, PlacementEffect> step = kernel.step(now, state, in);
    List<HostRecord> records = new ArrayList<>();
    List<HostResult.Refusal> refused = new ArrayList<>();
    for (PlacementEffect e : step.effects()) {
      if (e instanceof PlacementEffect.Refused r) {
        refused.add(new HostResult.Refusal(r.reason(), r.inboxSeq()));
      } else if (!(e instanceof PlacementEffect.Counted)) {
        records.add(encode(e));
      }
    }
    // nothing is persisted where nothing is read back (the in-process twin passes no envelope)
    List<StoreOp> ops = envelope == null ? List.of()
        : persist(state, step.state(), step.changes(), envelope);
    return new HostResult<>(step.state(), records, ops, refused, step.effects());
  }

  // ------------------------------------------------------------------------------ effects

  /** One effect as the record it is published as. */
  public HostRecord encode(PlacementEffect e) {
    if (e instanceof PlacementEffect.Decided d) {
      return new HostRecord(TopicCatalogue.PLACEMENT_DECISIONS, cluster,
          PlacementDecision.newBuilder().setDecisionId(d.decisionId()).setCluster(cluster)
              .setJobId(d.jobId()).setDecidedAt(d.at())
              .setOutcome(PlacementOutcome.valueOf(d.outcome().name()))
              .setAssignments(ClusterMapping.events(d.assignments()))
              .setDomainLevel(domainLevel(d.level())).setCrossDomain(d.crossDomain())
              .setScore(d.score()).setLedgerVersion(d.ledgerVersion())
              .setPolicyVersion(kernel.policy().policyVersion()).setTrace(trace(d.trace()))
              .setWorkers(ClusterMapping.workers(d.workers()))
              .build());
    } else if (e instanceof PlacementEffect.Changed c) {
      return new HostRecord(TopicCatalogue.PLACEMENT_LEDGER, cluster,
          ClusterMapping.event(cluster, c.change()));
    } else if (e instanceof PlacementEffect.Evict v) {
      return new HostRecord(TopicCatalogue.EVICTIONS, v.jobId(), Eviction.newBuilder()
          .setEvictionId(v.evictionId()).setJobId(v.jobId()).setCluster(cluster)
          .setKind(io.tideline.events.EvictionKind.valueOf(v.kind().name()))
          .setDecisionId(v.decisionId()).setCheckpointFirst(v.checkpointFirst())
          .setGraceSeconds(v.graceSeconds()).setTarget(ClusterMapping.events(v.target()))
          .setShrinkToGpus(v.shrinkToGpus() > 0 ? v.shrinkToGpus() : null)
          .setExpectedDurationSecondsAfter(v.stretchedSeconds() > 0 ? v.stretchedSeconds() : null)
          .setReason(v.reason()).setIssuedAt(v.at()).build());
    } else if (e instanceof PlacementEffect.RequestPreemption r) {
      JobRequest j = r.shape();
      List<ReservedGpuHolder> holders = new ArrayList<>();
      new TreeMap<>(r.holders()).forEach((job, share) -> holders.add(
          new ReservedGpuHolder(job, share)));
      return new HostRecord(TopicCatalogue.PREEMPTION_REQUESTS, cluster,
          PreemptionRequest.newBuilder().setRequestId(r.requestId()).setCluster(cluster)
              .setPreemptorJobId(r.subject())
              .setPreemptorClass(io.tideline.events.WorkloadClass.valueOf(
                  r.preemptorClass().name()))
              .setShape(ResourceRequest.newBuilder().setGpuCount(j.gpuCount())
                  .setGpuShare(j.gpuShare()).setGangSize(j.gangSize()).setNodes(j.nodes())
                  .setAllowedGpuModels(j.allowedGpuModels())
                  .setHardwarePreference(HardwarePreference.ANY).build())
              .setTrigger(PreemptionTrigger.valueOf(r.trigger().name()))
              .setLedgerVersion(r.ledgerVersion()).setRequestedAt(r.at())
              .setReservationId(r.reservationId()).setServiceId(r.serviceId())
              .setHolders(holders)
              .setExpectedWaitSeconds(r.expectedWaitSeconds() < 0 ? null
                  : r.expectedWaitSeconds()).build());
    } else if (e instanceof PlacementEffect.Position p) {
      return new HostRecord(TopicCatalogue.PLACEMENT_QUEUE, p.jobId(), QueuePosition.newBuilder()
          .setJobId(p.jobId()).setCluster(cluster)
          .setLane(io.tideline.events.Lane.valueOf(p.lane().name())).setPosition(p.position())
          .setEstimatedStart(p.estimatedStart()).setEstimateBasis(p.basis())
          .setCompensationBoost(p.boost()).setUpdatedAt(p.at()).build());
    } else if (e instanceof PlacementEffect.PositionCleared p) {
      return new HostRecord(TopicCatalogue.PLACEMENT_QUEUE, p.jobId(), null);
    } else if (e instanceof PlacementEffect.Fragmentation f) {
      List<DemandShape> shapes = new ArrayList<>();
      new TreeMap<>(f.shapes()).forEach((gpus, jobs) -> shapes.add(new DemandShape(gpus, jobs)));
      List<NodeFragmentationFigure> nodes = new ArrayList<>();
      f.nodes().forEach(n -> nodes.add(new NodeFragmentationFigure(n.nodeId(), n.idleGpus(),
          n.strandedGpus(), n.index(), n.usedShare())));
      return new HostRecord(TopicCatalogue.PLACEMENT_FRAGMENTATION, cluster,
          FragmentationReport.newBuilder().setCluster(cluster).setAt(f.at())
              .setLedgerVersion(f.ledgerVersion()).setIndex(f.index())
              .setStrandedGpus(f.strandedGpus()).setIdleGpus(f.idleGpus()).setShapes(shapes)
              .setNodes(nodes).setTrigger(FragmentationTrigger.valueOf(f.trigger()))
              .setPolicyVersion(kernel.policy().policyVersion()).build());
    }
    throw new IllegalArgumentException("no record for effect " + e);
  }

  /** T1 level → contract level; a multi-node NVLink island counts as its access switch. */
  public static DomainLevel domainLevel(TopologyLevel level) {
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

  static List<RuleTraceEntry> trace(List<io.tideline.core.trace.TraceEntry> trace) {
    List<RuleTraceEntry> t = new ArrayList<>(trace.size());
    for (var e : trace) {
      t.add(new RuleTraceEntry(e.subject(), e.rule(), e.outcome(), e.detail()));
    }
    return t;
  }

  // ------------------------------------------------------------------------------ the store

  /** Table of {@link PlacementState#meta()} and the ledger version. */
  public static final String META = PlacementState.META;

  /** The record type of each store table. */
  public static final Map<String, Class<? extends SpecificRecord>> STORE_TYPES = storeTypes(
      Map.ofEntries(
      Map.entry(PlacementState.PENDING, StoredPending.class),
      Map.entry(PlacementState.QUEUE, StoredQueueMark.class),
      Map.entry(PlacementState.FORECASTS, StoredSlotWindow.class),
      Map.entry(PlacementState.EVICTING, StoredEvicting.class),
      Map.entry(PlacementState.NAMED, StoredReclaimNamed.class),
      Map.entry(PlacementState.PARKED, StoredParkedAnswer.class),
      Map.entry(META, PlacementMetaState.class),
      Map.entry(InboxStore.TABLE, StoredInboxEntry.class)));

  private static Map<String, Class<? extends SpecificRecord>> storeTypes(
      Map<String, Class<? extends SpecificRecord>> own) {
    Map<String, Class<? extends SpecificRecord>> all = new HashMap<>(ClusterStore.TYPES);
    all.putAll(own);
    return Map.copyOf(all);
  }

  /** The store writes of one step. */
  public List<StoreOp> persist(PlacementState before, PlacementState after,
      Set<Journal.Changed> changes, LedgerInput envelope) {
    List<StoreOp> ops = new ArrayList<>();
    boolean meta = false;
    ClusterState c = after.cluster();
    for (Journal.Changed ch : changes) {
      String id = ch.id();
      if (ch.table().equals(META)) {
        meta = true;
        continue;
      }
      SpecificRecord v = ClusterStore.owns(ch.table()) ? ClusterStore.record(c, ch.table(), id)
          : switch (ch.table()) {
            case PlacementState.PENDING -> nullable(after.pending().get(id), PlacementHost::stored);
            case PlacementState.QUEUE -> nullable(after.queue().get(id), PlacementHost::stored);
            case PlacementState.FORECASTS ->
                nullable(after.forecasts().get(id), PlacementHost::stored);
            case PlacementState.EVICTING ->
                nullable(after.evicting().get(id), PlacementHost::stored);
            case PlacementState.NAMED -> nullable(after.named().get(id), PlacementHost::stored);
            case PlacementState.PARKED -> nullable(after.parked().get(id), PlacementHost::stored);
            default -> throw new IllegalStateException("unknown table " + ch.table());
          };
      ops.add(new StoreOp(ch.table(), id, v));
    }
    if (meta) {
      ops.add(new StoreOp(META, META, stored(after.meta(), c.version(), after.inbox())));
    }
    ops.addAll(InboxStore.ops(before.inbox(), after.inbox(), envelope));
    return ops;
  }

  private static <T> SpecificRecord nullable(T v,
      java.util.function.Function<T, SpecificRecord> f) {
    return v == null ? null : f.apply(v);
  }

  /**
   * The state a store held: tables of records by id, and a decoder for the inbox entries'
   * original bytes ({@code (topic, bytes) → record}).
   */
  @Override
  public PlacementState restore(Map<String, Map<String, SpecificRecord>> tables,
      BiFunction<String, byte[], SpecificRecord> decoder) {
    Map<String, SpecificRecord> none = Map.of();
    PlacementMetaState m = (PlacementMetaState) tables.getOrDefault(META, none).get(META);
    ClusterState cluster = ClusterStore.restore(tables, m == null ? 0 : m.getVersion());
    Inbox<PlacementInput> inbox = Inbox.startingAt(m == null ? 0 : m.getInboxNextSeq());
    for (SpecificRecord r : new TreeMap<>(tables.getOrDefault(InboxStore.TABLE, none))
        .values()) {
      StoredInboxEntry e = (StoredInboxEntry) r;
      LedgerInput li = e.getInput();
      byte[] bytes = new byte[li.getPayload().remaining()];
      li.getPayload().duplicate().get(bytes);
      inbox = inbox.restore(e.getSeq(), decode(li.getSourceTopic(),
          decoder.apply(li.getSourceTopic(), bytes)));
    }
    return new PlacementState(cluster,
        table(tables, PlacementState.PENDING, v -> pending((StoredPending) v)),
        table(tables, PlacementState.QUEUE, v -> mark((StoredQueueMark) v)),
        table(tables, PlacementState.FORECASTS, v -> window((StoredSlotWindow) v)),
        table(tables, PlacementState.EVICTING, v -> evicting((StoredEvicting) v)),
        table(tables, PlacementState.NAMED, v -> named((StoredReclaimNamed) v)),
        table(tables, PlacementState.PARKED, v -> parked((StoredParkedAnswer) v)),
        m == null ? PlacementMeta.START : meta(m), inbox);
  }

  private static <V> Table<V> table(Map<String, Map<String, SpecificRecord>> tables,
      String name, java.util.function.Function<SpecificRecord, V> f) {
    return ClusterStore.table(tables, name, f);
  }

  // ------------------------------------------------------------------------------ records

  static StoredPending stored(PendingRequest p) {
    return new StoredPending(p.requestId(), p.version(), PendingStatus.valueOf(p.status().name()),
        p.reservationId());
  }

  static PendingRequest pending(StoredPending s) {
    return new PendingRequest(s.getRequestId(), s.getVersion(),
        PendingRequest.Status.valueOf(s.getStatus().name()), s.getReservationId());
  }

  static StoredQueueMark stored(QueueMark m) {
    return new StoredQueueMark(m.boost(), m.parked(), m.announced(), m.position(),
        m.estimatedStart(), m.defragTriedAt(), m.shrinkToGpus(), m.stretchedSeconds(),
        m.retired());
  }

  static QueueMark mark(StoredQueueMark s) {
    return new QueueMark(s.getBoost(), s.getParked(), s.getAnnounced(), s.getPosition(),
        s.getEstimatedStart(), s.getDefragTriedAt(), s.getShrinkToGpus(), s.getStretchedSeconds(),
        s.getRetired());
  }

  static StoredSlotWindow stored(SlotWindow w) {
    return new StoredSlotWindow(w.start(), w.end(),
        io.tideline.events.SlotClass.valueOf(w.slotClass().name()));
  }

  static SlotWindow window(StoredSlotWindow s) {
    return new SlotWindow(s.getStart(), s.getEnd(), SlotClass.valueOf(s.getSlotClass().name()));
  }

  static StoredEvicting stored(Evicting e) {
    return new StoredEvicting(e.decisionId(), EvictingTrigger.valueOf(e.trigger().name()),
        e.reservationId(), e.serviceId(), e.shrinkToGpus());
  }

  static Evicting evicting(StoredEvicting s) {
    return new Evicting(s.getDecisionId(),
        PlacementInput.PreemptionAnswer.Trigger.valueOf(s.getTrigger().name()),
        s.getReservationId(), s.getServiceId(), s.getShrinkToGpus());
  }

  static StoredReclaimNamed stored(ReclaimNamed n) {
    return new StoredReclaimNamed(n.jobId(), NamedReclaimKind.valueOf(n.kind().name()),
        n.reclaimId(), n.shrinkToGpus(), n.namedAt());
  }

  static ReclaimNamed named(StoredReclaimNamed s) {
    return new ReclaimNamed(s.getJobId(), PlacementInput.Reclaim.Action.valueOf(
        s.getKind().name()), s.getReclaimId(), s.getShrinkToGpus(), s.getNamedAt());
  }

  static StoredParkedAnswer stored(PlacementInput.PreemptionAnswer a) {
    List<StoredAnswerVictim> victims = new ArrayList<>();
    a.victims().forEach(v -> victims.add(new StoredAnswerVictim(v.jobId(), v.shrinkToGpus())));
    return new StoredParkedAnswer(a.decisionId(), a.requestId(), a.subject(),
        ParkedTrigger.valueOf(a.trigger().name()), victims, a.preemptorScore(), a.ledgerVersion(),
        a.decidedAt(), a.cluster());
  }

  /** A parked answer as stored (only preempting reclaim answers are ever parked). */
  static PlacementInput.PreemptionAnswer parked(StoredParkedAnswer s) {
    List<PlacementInput.AnswerVictim> victims = new ArrayList<>();
    s.getVictims().forEach(v -> victims.add(new PlacementInput.AnswerVictim(v.getJobId(),
        v.getShrinkToGpus())));
    return new PlacementInput.PreemptionAnswer(s.getDecisionId(), s.getRequestId(),
        s.getSubject(), PlacementInput.PreemptionAnswer.Trigger.valueOf(s.getTrigger().name()),
        true, victims, s.getPreemptorScore(), s.getLedgerVersion(), s.getDecidedAt(),
        s.getCluster());
  }

  static PlacementMetaState stored(PlacementMeta m, long version, Inbox<?> inbox) {
    List<StoredMigration> mig = new ArrayList<>();
    m.migrations().forEach(x -> mig.add(new StoredMigration(x.at(), x.gpuShare())));
    return new PlacementMetaState(version, m.now(), m.lastActiveDefrag(), m.lastPassiveDefrag(),
        m.lastReportAt(), m.lastReportIndex(), mig, inbox.nextSeq());
  }

  static PlacementMeta meta(PlacementMetaState s) {
    List<PastMigration> mig = new ArrayList<>();
    s.getMigrations().forEach(x -> mig.add(new PastMigration(x.getAt(), x.getGpuShare())));
    return new PlacementMeta(s.getNow(), s.getLastActiveDefrag(), s.getLastPassiveDefrag(),
        s.getLastReportAt(), s.getLastReportIndex(), mig);
  }
}
