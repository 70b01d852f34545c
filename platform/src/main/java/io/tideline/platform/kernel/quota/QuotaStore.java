package io.tideline.platform.kernel.quota;

import io.tideline.core.model.CheckpointProfile;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import io.tideline.core.pricing.ChargeBasis;
import io.tideline.core.quota.AdmissionVerdict;
import io.tideline.core.quota.Allocation;
import io.tideline.core.quota.DecayedUsage;
import io.tideline.core.quota.IdleRecommendation;
import io.tideline.core.quota.Verdict;
import io.tideline.core.quota.kernel.BillingDay;
import io.tideline.core.quota.kernel.JobSamples;
import io.tideline.core.quota.kernel.PendingReclaim;
import io.tideline.core.quota.kernel.QuotaInput;
import io.tideline.core.quota.kernel.QuotaJob;
import io.tideline.core.quota.kernel.QuotaKernelConfig;
import io.tideline.core.quota.kernel.QuotaKernelState;
import io.tideline.core.trace.TraceEntry;
import io.tideline.events.RuleTraceEntry;
import io.tideline.state.AllocationRecord;
import io.tideline.state.BillingDayRecord;
import io.tideline.state.ChargeBasisKind;
import io.tideline.state.CheckpointRecord;
import io.tideline.state.IdleAction;
import io.tideline.state.IdleMarkRecord;
import io.tideline.state.JobRequestRecord;
import io.tideline.state.JobSamplesRecord;
import io.tideline.state.PendingReclaimRecord;
import io.tideline.state.QueueHistoryRecord;
import io.tideline.state.QuotaClockRecord;
import io.tideline.state.QuotaDefinitionRecord;
import io.tideline.state.QuotaJobRecord;
import io.tideline.state.QuotaJobStatus;
import io.tideline.state.ServicePeakRecord;
import io.tideline.state.StoredVerdict;
import io.tideline.state.UtilisationPointRecord;
import io.tideline.state.VerdictKind;
import io.tideline.state.WithdrawnBorrowerRecord;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecord;

/**
 * The quota kernel's state tables as Avro store records ({@code io.tideline.state}), one store per
 * table: {@link QuotaKernelState#JOBS} → {@link QuotaJobRecord}, {@link QuotaKernelState#SAMPLES} →
 * {@link JobSamplesRecord}, {@link QuotaKernelState#BILLING} → {@link BillingDayRecord},
 * {@link QuotaKernelState#HISTORY} → {@link QueueHistoryRecord}, {@link QuotaKernelState#PEAKS} →
 * {@link ServicePeakRecord}, {@link QuotaKernelState#RECLAIMS} → {@link PendingReclaimRecord}, and
 * {@link QuotaKernelState#META}: {@link QuotaDefinitionRecord} and {@link QuotaClockRecord}. The
 * inbox ({@link QuotaKernelState#INBOX}) is stored by the adapter as the inputs' envelopes. Every
 * value is stored exactly (doubles as their bits, decayed usage and money as integers), so
 * {@link #restore} rebuilds the state the kernel had.
 */
public final class QuotaStore {

  private final QuotaKernelConfig config;

  QuotaStore(QuotaKernelConfig config) {
    this.config = config;
  }

  /**
   * What a store holds, table by table (a restore's input).
   *
   * @param inbox the waiting inputs by inbox sequence, already decoded by the adapter
   */
  public record Stored(QuotaDefinitionRecord definition, QuotaClockRecord clock,
      Map<String, QuotaJobRecord> jobs, Map<String, JobSamplesRecord> samples,
      Map<String, BillingDayRecord> billing, Map<String, QueueHistoryRecord> history,
      Map<String, ServicePeakRecord> peaks, Map<String, PendingReclaimRecord> reclaims,
      Map<Long, QuotaInput.Buffered> inbox) {}

  /**
   * The store record of entity {@code id} of {@code table} in {@code s}, or {@code null} when it
   * no longer exists (delete it). Not for the inbox.
   */
  public SpecificRecord entity(QuotaKernelState s, String table, String id) {
    switch (table) {
      case QuotaKernelState.JOBS -> {
        QuotaJob j = s.jobs().get(id);
        return j == null ? null : job(j);
      }
      case QuotaKernelState.SAMPLES -> {
        JobSamples j = s.samples().get(id);
        return j == null ? null : samples(j);
      }
      case QuotaKernelState.BILLING -> {
        BillingDay b = s.billing().get(id);
        return b == null ? null : billing(b);
      }
      case QuotaKernelState.HISTORY -> {
        DecayedUsage h = s.history().get(id);
        return h == null ? null : QueueHistoryRecord.newBuilder().setQueue(id)
            .setGpuMillis(h.gpuMillis()).setAsOf(h.asOf()).build();
      }
      case QuotaKernelState.PEAKS -> {
        Double p = s.peaks().get(id);
        return p == null ? null : ServicePeakRecord.newBuilder().setServiceId(id)
            .setHistoricalPeakGpus(p).build();
      }
      case QuotaKernelState.RECLAIMS -> {
        PendingReclaim p = s.reclaims().get(id);
        return p == null ? null : reclaim(p);
      }
      case QuotaKernelState.META -> {
        if (QuotaKernelState.DEFINITION.equals(id)) {
          QuotaInput.Definition d = s.definition();
          return d == null ? null : QuotaDefinitionRecord.newBuilder().setCluster(d.cluster())
              .setVersion(d.version()).setSource(d.source()).setText(d.text())
              .setPublishedAt(d.at()).build();
        }
        return QuotaClockRecord.newBuilder().setLastTick(s.lastTick())
            .setNextInboxSeq(s.inbox().nextSeq()).build();
      }
      default -> throw new IllegalArgumentException("no store record for table " + table);
    }
  }

  /** The state these records describe. */
  public QuotaKernelState restore(Stored s) {
    QuotaInput.Definition definition = null;
    if (s.definition() != null) {
      QuotaDefinitionRecord d = s.definition();
      try {
        definition = QuotaHost.definition(d.getCluster(), null, d.getSource(), d.getText(),
            d.getPublishedAt());
      } catch (QuotaDocuments.InvalidDefinition e) {
        throw new IllegalStateException("the stored quota definition " + d.getVersion()
            + " no longer parses: " + e.getMessage(), e);
      }
    }
    Map<String, QuotaJob> jobs = new TreeMap<>();
    s.jobs().forEach((k, v) -> jobs.put(k, job(v)));
    Map<String, JobSamples> samples = new TreeMap<>();
    s.samples().forEach((k, v) -> samples.put(k, samples(v)));
    Map<String, BillingDay> billing = new TreeMap<>();
    s.billing().forEach((k, v) -> billing.put(k, billing(v)));
    Map<String, DecayedUsage> history = new TreeMap<>();
    s.history().forEach((k, v) -> history.put(k, new DecayedUsage(v.getGpuMillis(),
        v.getAsOf())));
    Map<String, Double> peaks = new TreeMap<>();
    s.peaks().forEach((k, v) -> peaks.put(k, v.getHistoricalPeakGpus()));
    Map<String, PendingReclaim> reclaims = new TreeMap<>();
    s.reclaims().forEach((k, v) -> reclaims.put(k, reclaim(v)));
    QuotaClockRecord clock = s.clock();
    return QuotaKernelState.restore(config.quota(), definition,
        clock == null ? null : clock.getLastTick(), clock == null ? 0 : clock.getNextInboxSeq(),
        jobs, samples, billing, history, peaks, reclaims, s.inbox());
  }

  // ------------------------------------------------------------------ jobs

  static QuotaJobRecord job(QuotaJob j) {
    return QuotaJobRecord.newBuilder()
        .setRequest(request(j.request()))
        .setStatus(QuotaJobStatus.valueOf(j.status().name()))
        .setLastPreemptedAt(j.lastPreemptedAt())
        .setVerdict(j.verdict() == null ? null : verdict(j.verdict()))
        .setBasis(j.basis() == null ? null : ChargeBasisKind.valueOf(j.basis().name()))
        .setMeteredUntil(j.meteredUntil())
        .setAllocation(j.allocation() == null ? null : AllocationRecord.newBuilder()
            .setQueue(j.allocation().queue())
            .setGuaranteedGpus(j.allocation().guaranteedGpus())
            .setBorrowedGpus(j.allocation().borrowedGpus())
            .setAdmittedAt(j.allocation().admittedAt()).build())
        .setLastIdle(j.lastIdle() == null ? null : IdleMarkRecord.newBuilder()
            .setAction(IdleAction.valueOf(j.lastIdle().action().name()))
            .setGpus(j.lastIdle().gpus()).build())
        .build();
  }

  public static QuotaJob job(QuotaJobRecord r) {
    JobRequest request = request(r.getRequest());
    AllocationRecord a = r.getAllocation();
    IdleMarkRecord m = r.getLastIdle();
    return new QuotaJob(request, QuotaJob.Status.valueOf(r.getStatus().name()),
        r.getLastPreemptedAt(), r.getVerdict() == null ? null : verdict(r.getVerdict()),
        r.getBasis() == null ? null : ChargeBasis.valueOf(r.getBasis().name()),
        r.getMeteredUntil(),
        a == null ? null : new Allocation(request.jobId(), a.getQueue(), a.getGuaranteedGpus(),
            a.getBorrowedGpus(), a.getAdmittedAt()),
        m == null ? null : new QuotaJob.IdleMark(IdleRecommendation.Action.valueOf(
            m.getAction().name()), m.getGpus()));
  }

  static JobRequestRecord request(JobRequest j) {
    CheckpointProfile c = j.checkpoint();
    return JobRequestRecord.newBuilder()
        .setJobId(j.jobId()).setTenant(j.tenant()).setTeam(j.team()).setUser(j.user())
        .setWorkloadClass(j.workloadClass() == null ? null
            : io.tideline.events.WorkloadClass.valueOf(j.workloadClass().name()))
        .setCritical(j.critical()).setPreemptible(j.preemptible())
        .setPreemptionRight(j.preemptionRight()).setServiceId(j.serviceId())
        .setGpuCount(j.gpuCount()).setGpuShare(j.gpuShare()).setGangSize(j.gangSize())
        .setNodes(j.nodes()).setAllowedGpuModels(j.allowedGpuModels())
        .setSubmittedAt(j.submittedAt()).setDeadline(j.deadline())
        .setExpectedDurationSeconds(j.expectedDurationSeconds())
        .setCheckpoint(c == null ? null : CheckpointRecord.newBuilder()
            .setStateSizeGb(c.stateSizeGb()).setStorageBandwidthGbPerSec(
                c.storageBandwidthGbPerSec()).setWriteShards(c.writeShards())
            .setIntervalSeconds(c.intervalSeconds()).build())
        .setDataCacheGb(j.dataCacheGb())
        .build();
  }

  static JobRequest request(JobRequestRecord r) {
    CheckpointRecord c = r.getCheckpoint();
    return new JobRequest(r.getJobId(), r.getTenant(), r.getTeam(), r.getUser(),
        r.getWorkloadClass() == null ? null : WorkloadClass.valueOf(r.getWorkloadClass().name()),
        r.getCritical(), r.getPreemptible(), r.getPreemptionRight(), r.getServiceId(),
        r.getGpuCount(), r.getGpuShare(), r.getGangSize(), r.getNodes(),
        List.copyOf(r.getAllowedGpuModels()), r.getSubmittedAt(), r.getDeadline(),
        r.getExpectedDurationSeconds(), c == null ? null : new CheckpointProfile(
            c.getStateSizeGb(), c.getStorageBandwidthGbPerSec(), c.getWriteShards(),
            c.getIntervalSeconds()), r.getDataCacheGb());
  }

  static StoredVerdict verdict(AdmissionVerdict v) {
    return StoredVerdict.newBuilder()
        .setJobId(v.jobId()).setQueue(v.queue())
        .setVerdict(VerdictKind.valueOf(v.verdict().name()))
        .setGuaranteedGpus(v.guaranteedGpus()).setBorrowedGpus(v.borrowedGpus())
        .setReclaimJobIds(v.reclaimJobIds())
        .setPreemptionRightGranted(v.preemptionRightGranted())
        .setReason(v.reason()).setUnblockedBy(v.unblockedBy() == null ? "" : v.unblockedBy())
        .setTrace(QuotaHost.trace(v.trace()))
        .setPolicyVersion(v.policyVersion()).setDecidedAt(v.decidedAt())
        .build();
  }

  public static AdmissionVerdict verdict(StoredVerdict r) {
    return new AdmissionVerdict(r.getJobId(), r.getQueue(), Verdict.valueOf(r.getVerdict().name()),
        r.getGuaranteedGpus(), r.getBorrowedGpus(), List.copyOf(r.getReclaimJobIds()),
        r.getPreemptionRightGranted(), r.getReason(), r.getUnblockedBy(),
        r.getTrace().stream().map(QuotaStore::trace).toList(), r.getPolicyVersion(),
        r.getDecidedAt());
  }

  private static TraceEntry trace(RuleTraceEntry t) {
    return new TraceEntry(t.getSubject(), t.getRule(), t.getOutcome(), t.getDetail());
  }

  // ------------------------------------------------------------------ the other tables

  static JobSamplesRecord samples(JobSamples s) {
    return JobSamplesRecord.newBuilder().setJobId(s.jobId())
        .setPoints(s.points().stream().map(p -> UtilisationPointRecord.newBuilder()
            .setAt(p.at()).setGpuId(p.gpuId()).setUtilisation(p.utilisation()).build()).toList())
        .build();
  }

  static JobSamples samples(JobSamplesRecord r) {
    return new JobSamples(r.getJobId(), r.getPoints().stream().map(p -> new JobSamples.Point(
        p.getAt(), p.getGpuId(), p.getUtilisation())).toList());
  }

  static BillingDayRecord billing(BillingDay b) {
    return BillingDayRecord.newBuilder().setTenant(b.tenant()).setDay(b.day())
        .setCurrency(b.currency()).setAmountMicros(b.amountMicros())
        .setMicroGpuSeconds(b.microGpuSeconds())
        .setAmountMicrosBySlot(new HashMap<>(b.amountMicrosBySlot()))
        .setMicroGpuSecondsBySlot(new HashMap<>(b.microGpuSecondsBySlot()))
        .setAmountMicrosByJob(new HashMap<>(b.amountMicrosByJob()))
        .setPieces(b.pieces()).build();
  }

  public static BillingDay billing(BillingDayRecord r) {
    return new BillingDay(r.getTenant(), r.getDay(), r.getCurrency(), r.getAmountMicros(),
        r.getMicroGpuSeconds(), new TreeMap<>(r.getAmountMicrosBySlot()),
        new TreeMap<>(r.getMicroGpuSecondsBySlot()), new TreeMap<>(r.getAmountMicrosByJob()),
        r.getPieces());
  }

  static PendingReclaimRecord reclaim(PendingReclaim p) {
    return PendingReclaimRecord.newBuilder().setReclaimId(p.reclaimId())
        .setBeneficiaryJobId(p.beneficiaryJobId()).setQueue(p.queue()).setGpus(p.gpus())
        .setBorrowers(p.borrowers())
        .setWithdrawn(p.withdrawn().stream().map(w -> WithdrawnBorrowerRecord.newBuilder()
            .setJobId(w.jobId()).setQueue(w.queue()).setGuaranteedGpus(w.guaranteedGpus())
            .setBorrowedGpus(w.borrowedGpus()).build()).toList())
        .setAttempt(p.attempt())
        .setFirstRequestedAt(p.firstRequestedAt()).setRequestedAt(p.requestedAt()).build();
  }

  static PendingReclaim reclaim(PendingReclaimRecord r) {
    return new PendingReclaim(r.getReclaimId(), r.getBeneficiaryJobId(), r.getQueue(),
        r.getGpus(), List.copyOf(r.getBorrowers()), r.getWithdrawn().stream().map(w ->
            new PendingReclaim.Withdrawn(w.getJobId(), w.getQueue(), w.getGuaranteedGpus(),
                w.getBorrowedGpus())).toList(),
        r.getAttempt(), r.getFirstRequestedAt(), r.getRequestedAt());
  }
}
