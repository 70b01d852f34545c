package io.tideline.platform.kernel;

import io.tideline.core.cluster.state.ClusterState;
import io.tideline.core.kernel.Inbox;
import io.tideline.core.kernel.Journal;
import io.tideline.core.kernel.Step;
import io.tideline.core.kernel.Tick;
import io.tideline.core.model.WorkloadClass;
import io.tideline.core.preemption.kernel.PreemptionEffect;
import io.tideline.core.preemption.kernel.PreemptionInput;
import io.tideline.core.preemption.kernel.PreemptionKernel;
import io.tideline.core.preemption.kernel.PreemptionPolicy;
import io.tideline.core.preemption.kernel.PreemptionState;
import io.tideline.events.ClockTick;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LedgerChange;
import io.tideline.events.LedgerInput;
import io.tideline.events.NodeInventory;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.PreemptionRequest;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.RuleTraceEntry;
import io.tideline.events.Victim;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.state.PreemptionMetaState;
import io.tideline.state.StoredInboxEntry;
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
 * The preemption kernel behind its contracts (see {@link PlacementHost}): preemption-svc's view
 * processor and the in-process twin both run exactly this.
 */
public final class PreemptionHost implements KernelHost.Stored<PreemptionState> {


  /** The meta entity (clock, inbox sequence). */
  public static final String META = PreemptionState.META;

  /** The record type of each store table. */
  public static final Map<String, Class<? extends SpecificRecord>> STORE_TYPES;

  static {
    Map<String, Class<? extends SpecificRecord>> t = new HashMap<>(ClusterStore.TYPES);
    t.put(PreemptionState.DEFERRED, PreemptionRequest.class);
    t.put(META, PreemptionMetaState.class);
    t.put(InboxStore.TABLE, StoredInboxEntry.class);
    STORE_TYPES = Map.copyOf(t);
  }

  private final PreemptionKernel kernel;
  private final String cluster;

  public PreemptionHost(PreemptionPolicy policy) {
    this.kernel = new PreemptionKernel(policy);
    this.cluster = policy.cluster();
  }

  public PreemptionKernel kernel() {
    return kernel;
  }

  /** The input topics. */
  public static List<String> inputTopics() {
    return List.of(TopicCatalogue.CLUSTER_INVENTORY, TopicCatalogue.JOBS_SUBMITTED,
        TopicCatalogue.QUOTA_VERDICTS, TopicCatalogue.JOBS_LIFECYCLE,
        TopicCatalogue.CLUSTER_CLOCK, TopicCatalogue.PLACEMENT_LEDGER,
        TopicCatalogue.PREEMPTION_REQUESTS, TopicCatalogue.QUOTA_RECLAIMS);
  }

  // ------------------------------------------------------------------------------ inputs

  /** The kernel input a record carries; {@code null} for a record of no kernel input. */
  public PreemptionInput decode(String topic, SpecificRecord value) {
    if (value instanceof NodeInventory n) {
      return new PreemptionInput.Inventory(ClusterMapping.node(n));
    } else if (value instanceof JobSubmitted s) {
      return new PreemptionInput.Submission(ClusterMapping.job(s));
    } else if (value instanceof QuotaVerdict v) {
      return new PreemptionInput.Verdict(v.getJobId(), ClusterMapping.admission(v));
    } else if (value instanceof JobLifecycle l) {
      return new PreemptionInput.Lifecycle(ClusterMapping.lifecycle(l));
    } else if (value instanceof LedgerChange c) {
      return new PreemptionInput.Ledger(ClusterMapping.change(c), c.getCluster());
    } else if (value instanceof PreemptionRequest r) {
      return request(r);
    } else if (value instanceof QuotaReclaim q) {
      if (q.getAction() == io.tideline.events.ReclaimAction.UNKNOWN) {
        throw new IllegalArgumentException("reclaim " + q.getReclaimId() + " of " + q.getJobId()
            + " asks an action this version does not know");
      }
      List<String> borrowers = new ArrayList<>();
      q.getBorrowers().forEach(b -> borrowers.add(b.getJobId()));
      return new PreemptionInput.Reclaim(q.getJobId(),
          PreemptionInput.Reclaim.Action.valueOf(q.getAction().name()), q.getRecommendedGpus(),
          borrowers, q.getReclaimId(), q.getReason(), q.getDecidedAt());
    } else if (value instanceof ClockTick t) {
      return new PreemptionInput.ClockTick(new Tick(t.getTime(), t.getCluster()));
    }
    return null;
  }

  static PreemptionInput.Request request(PreemptionRequest r) {
    var s = r.getShape();
    Map<String, Double> holders = new TreeMap<>();
    r.getHolders().forEach(h -> holders.merge(h.getJobId(), h.getReservedGpus(), Double::sum));
    return new PreemptionInput.Request(r.getRequestId(), r.getPreemptorJobId(),
        WorkloadClass.valueOf(r.getPreemptorClass().name()), s.getGpuCount(), s.getGpuShare(),
        s.getGangSize(), s.getNodes(), s.getAllowedGpuModels(),
        PreemptionInput.Request.Trigger.valueOf(r.getTrigger().name()), r.getLedgerVersion(),
        r.getRequestedAt(), r.getReservationId(), r.getServiceId(), holders,
        r.getExpectedWaitSeconds() == null ? -1 : r.getExpectedWaitSeconds(), r.getCluster());
  }

  static PreemptionRequest request(PreemptionInput.Request r) {
    List<io.tideline.events.ReservedGpuHolder> holders = new ArrayList<>();
    new TreeMap<>(r.holders()).forEach((job, share) -> holders.add(
        new io.tideline.events.ReservedGpuHolder(job, share)));
    return PreemptionRequest.newBuilder().setRequestId(r.requestId()).setCluster(r.cluster())
        .setPreemptorJobId(r.subject())
        .setPreemptorClass(io.tideline.events.WorkloadClass.valueOf(r.preemptorClass().name()))
        .setShape(io.tideline.events.ResourceRequest.newBuilder().setGpuCount(r.gpuCount())
            .setGpuShare(r.gpuShare()).setGangSize(r.gangSize()).setNodes(r.nodes())
            .setAllowedGpuModels(r.allowedGpuModels())
            .setHardwarePreference(io.tideline.events.HardwarePreference.ANY).build())
        .setTrigger(io.tideline.events.PreemptionTrigger.valueOf(r.trigger().name()))
        .setLedgerVersion(r.ledgerVersion()).setRequestedAt(r.requestedAt())
        .setReservationId(r.reservationId()).setServiceId(r.serviceId()).setHolders(holders)
        .setExpectedWaitSeconds(r.expectedWaitSeconds() < 0 ? null : r.expectedWaitSeconds())
        .build();
  }

  @Override
  public PreemptionState empty() {
    return PreemptionState.empty();
  }

  @Override
  public Instant clock(PreemptionState state) {
    return state.now();
  }

  @Override
  public Map<String, Class<? extends SpecificRecord>> storeTypes() {
    return STORE_TYPES;
  }

  /** Offers one record (see {@link PlacementHost#offer}). */
  @Override
  public HostResult<PreemptionState> offer(Instant now, PreemptionState state, String topic,
      SpecificRecord value, LedgerInput envelope) {
    PreemptionInput in = decode(topic, value);
    if (in == null) {
      throw new IllegalArgumentException("not an input of preemption: " + topic);
    }
    Step<PreemptionState, PreemptionEffect> step = kernel.step(now, state, in);
    List<HostRecord> records = new ArrayList<>();
    List<HostResult.Refusal> refused = new ArrayList<>();
    for (PreemptionEffect e : step.effects()) {
      if (e instanceof PreemptionEffect.Refused r) {
        refused.add(new HostResult.Refusal(r.reason(), r.inboxSeq()));
      } else {
        records.add(encode((PreemptionEffect.Decided) e));
      }
    }
    // nothing is persisted where nothing is read back (the in-process twin passes no envelope)
    return new HostResult<>(step.state(), records, envelope == null ? List.of()
        : persist(state, step.state(), step.changes(), envelope), refused, step.effects());
  }

  /** A decision as its record. */
  public HostRecord encode(PreemptionEffect.Decided d) {
    List<Victim> victims = new ArrayList<>();
    for (PreemptionEffect.DecidedVictim v : d.victims()) {
      victims.add(Victim.newBuilder().setJobId(v.jobId()).setTenant(v.tenant())
          .setUser(v.user()).setScore(v.score()).setGpus(v.gpus())
          .setCostGpuHours(v.costGpuHours()).setQueueBoost(v.queueBoostMinutes())
          .setRetryAfter(v.retryAfter()).setSharedPoolFallback(v.sharedPoolFallback())
          .setShrinkToGpus(v.shrinkToGpus() > 0 ? v.shrinkToGpus() : null).build());
    }
    return new HostRecord(TopicCatalogue.PREEMPTION_DECISIONS, cluster,
        PreemptionDecision.newBuilder().setDecisionId(d.decisionId())
            .setRequestId(d.requestId()).setCluster(cluster).setPreemptorJobId(d.subject())
            .setDecidedAt(d.at())
            .setOutcome(d.preempts() ? PreemptionOutcome.PREEMPT : PreemptionOutcome.REFUSED)
            .setPreemptorScore(d.preemptorScore()).setVictims(victims)
            .setTotalCostGpuHours(d.totalCostGpuHours()).setGainGpuHours(d.gainGpuHours())
            .setLedgerVersion(d.ledgerVersion()).setPolicyVersion(d.policyVersion())
            .setTrace(PlacementHost.trace(d.trace())).setTrigger(d.trigger()).build());
  }

  // ------------------------------------------------------------------------------ the store

  /** The store writes of one step. */
  public List<StoreOp> persist(PreemptionState before, PreemptionState after,
      Set<Journal.Changed> changes, LedgerInput envelope) {
    List<StoreOp> ops = new ArrayList<>();
    boolean meta = false;
    for (Journal.Changed ch : changes) {
      if (ch.table().equals(META)) {
        meta = true;
      } else if (ClusterStore.owns(ch.table())) {
        ops.add(new StoreOp(ch.table(), ch.id(),
            ClusterStore.record(after.cluster(), ch.table(), ch.id())));
      } else if (ch.table().equals(PreemptionState.DEFERRED)) {
        var r = after.deferred().get(ch.id());
        ops.add(new StoreOp(ch.table(), ch.id(), r == null ? null : request(r)));
      } else {
        throw new IllegalStateException("unknown table " + ch.table());
      }
    }
    if (meta) {
      ops.add(new StoreOp(META, META, new PreemptionMetaState(after.cluster().version(),
          after.now(), after.inbox().nextSeq())));
    }
    ops.addAll(InboxStore.ops(before.inbox(), after.inbox(), envelope));
    return ops;
  }

  /** The state a store held (see {@link PlacementHost#restore}). */
  @Override
  public PreemptionState restore(Map<String, Map<String, SpecificRecord>> tables,
      BiFunction<String, byte[], SpecificRecord> decoder) {
    PreemptionMetaState m = (PreemptionMetaState) tables.getOrDefault(META, Map.of()).get(META);
    ClusterState cluster = ClusterStore.restore(tables, m == null ? 0 : m.getVersion());
    Inbox<PreemptionInput> inbox = Inbox.startingAt(m == null ? 0 : m.getInboxNextSeq());
    for (SpecificRecord r : new TreeMap<>(tables.getOrDefault(InboxStore.TABLE, Map.of()))
        .values()) {
      StoredInboxEntry e = (StoredInboxEntry) r;
      LedgerInput li = e.getInput();
      byte[] bytes = new byte[li.getPayload().remaining()];
      li.getPayload().duplicate().get(bytes);
      inbox = inbox.restore(e.getSeq(), decode(li.getSourceTopic(),
          decoder.apply(li.getSourceTopic(), bytes)));
    }
    return new PreemptionState(cluster, ClusterStore.table(tables, PreemptionState.DEFERRED,
        v -> request((PreemptionRequest) v)), m == null ? null : m.getNow(), inbox);
  }

  static List<RuleTraceEntry> trace(List<io.tideline.core.trace.TraceEntry> t) {
    return PlacementHost.trace(t);
  }
}
