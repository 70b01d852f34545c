package io.tideline.platform.kernel.quota;

import io.tideline.core.kernel.Tick;
import io.tideline.core.quota.IdleRecommendation;
import io.tideline.core.quota.kernel.QuotaEffect;
import io.tideline.core.quota.kernel.QuotaInput;
import io.tideline.core.quota.kernel.QuotaKernel;
import io.tideline.core.quota.kernel.QuotaKernelConfig;
import io.tideline.core.quota.kernel.QuotaKernelState;
import io.tideline.core.model.WorkloadClass.Lane;
import io.tideline.core.trace.TraceEntry;
import io.tideline.events.BillingUsage;
import io.tideline.events.ClockTick;
import io.tideline.events.GpuAssignment;
import io.tideline.events.GpuSample;
import io.tideline.events.GpuReading;
import io.tideline.events.GpuSampleBatch;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.PricingKind;
import io.tideline.events.QuotaChange;
import io.tideline.events.QuotaChangeKind;
import io.tideline.events.QuotaConfigDocument;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaSegment;
import io.tideline.events.QuotaState;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.ReclaimAction;
import io.tideline.events.ReclaimBorrower;
import io.tideline.events.RuleTraceEntry;
import io.tideline.events.SampleState;
import io.tideline.events.SlotClass;
import io.tideline.events.SlotForecast;
import io.tideline.platform.intake.JobRequests;
import io.tideline.platform.topics.TopicCatalogue;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;

/**
 * The quota kernel's host: the one mapping between the Avro contracts and the core's
 * {@link QuotaKernel} — input records to {@link QuotaInput}s, {@link QuotaEffect}s to the records
 * to publish, and the kernel's state tables to their Avro store records ({@link QuotaStore}). Pure:
 * no Kafka client, no store. quota-svc's Streams processor and the simulator's in-process twin
 * both run it, so they decide with the very same code on the very same records.
 *
 * <p>For the twin: {@code decode(topic, record)} each record a consumer would have decoded, feed
 * the {@link Decoded.Input}s to {@link QuotaKernel#step}, and {@link #encode} each effect; a
 * {@link Out.DeadLetter} names the refused input by the inbox sequence it had (or {@code -1} for
 * the record just offered).
 */
public final class QuotaHost {

  /** Topic of quota definition documents. */
  public static final String CONFIG = "quota.config";
  /** Topic of quota's audit of definitions and guarantees. */
  public static final String CHANGES = "quota.changes";
  /** Topic of quota's reclaim requests (Q7 idle, Q3 guarantee). */
  public static final String RECLAIMS = "quota.reclaims";

  private final QuotaKernelConfig config;
  private final QuotaKernel kernel;

  public QuotaHost(QuotaKernelConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    this.kernel = new QuotaKernel(config);
  }

  public QuotaKernelConfig config() {
    return config;
  }

  /** The kernel this host maps for. */
  public QuotaKernel kernel() {
    return kernel;
  }

  /**
   * A definition document as a kernel input, parsed and validated ({@link QuotaDocuments}).
   *
   * @param expectedVersion the version the envelope claims, or {@code null} not to check it
   */
  public static QuotaInput.Definition definition(String cluster, String expectedVersion,
      String source, String text, Instant at) throws QuotaDocuments.InvalidDefinition {
    QuotaDocuments.Parsed p = QuotaDocuments.parse(text, expectedVersion);
    return new QuotaInput.Definition(cluster, p.definition().version(), source, text,
        p.definition(), p.fleetGpus(), at);
  }

  /** The bootstrap definition (a file read at start-up), or an error with every reason. */
  public static QuotaInput.Definition bootstrap(String source, String text) {
    try {
      return definition(null, null, source, text, Instant.EPOCH);
    } catch (QuotaDocuments.InvalidDefinition e) {
      throw new IllegalArgumentException("bootstrap quota definition " + source + " is invalid: "
          + e.getMessage(), e);
    }
  }

  // ==================================================================== inputs

  /** What an input record means to the kernel. */
  public sealed interface Decoded {

    /** A kernel input. */
    record Input(QuotaInput input) implements Decoded {}

    /**
     * A node's scrape ({@code gpu.telemetry.batches}, ADR 0040): the inputs of those of its GPUs'
     * samples quota uses, in the batch's order (at least one), stepped back to back as the samples
     * would be.
     */
    record Inputs(List<QuotaInput> inputs) implements Decoded {}

    /** Nothing for quota (another cluster, a stale sample, a fact quota does not use). */
    record Ignored(String why) implements Decoded {}

    /** Unusable: dead-letter it with the reason. */
    record Refused(String errorClass, String reason) implements Decoded {}
  }

  /**
   * The kernel input a decoded record of {@code topic} is, with the checks a schema cannot express
   * (a NaN peak or utilisation is refused, not read as 0; a definition is parsed and validated).
   * Submissions are checked by the platform's {@code JobIntake} before they get here.
   */
  public Decoded decode(String topic, Object value) {
    switch (topic) {
      case CONFIG -> {
        if (!(value instanceof QuotaConfigDocument d)) {
          return wrongType("QuotaConfigDocument", value);
        }
        if (!config.cluster().equals(d.getCluster())) {
          return new Decoded.Ignored("definition " + d.getVersion() + " is for cluster "
              + d.getCluster());
        }
        try {
          return new Decoded.Input(definition(d.getCluster(), d.getVersion(), CONFIG
              + (d.getAuthor() == null ? "" : " by " + d.getAuthor()), d.getDocument(),
              d.getPublishedAt()));
        } catch (QuotaDocuments.InvalidDefinition e) {
          return new Decoded.Refused("VALIDATION", "quota definition " + d.getVersion()
              + " refused, the previous one stays in force: " + e.getMessage());
        }
      }
      case TopicCatalogue.JOBS_SUBMITTED -> {
        return value instanceof JobSubmitted s
            ? new Decoded.Input(new QuotaInput.Submission(JobRequests.fromEvent(s)))
            : wrongType("JobSubmitted", value);
      }
      case TopicCatalogue.JOBS_LIFECYCLE -> {
        if (!(value instanceof JobLifecycle l)) {
          return wrongType("JobLifecycle", value);
        }
        if (!config.cluster().equals(l.getCluster())) {
          return new Decoded.Ignored("lifecycle of cluster " + l.getCluster());
        }
        QuotaInput.Lifecycle.Kind kind = switch (l.getType()) {
          case STARTED -> QuotaInput.Lifecycle.Kind.STARTED;
          case RESUMED -> QuotaInput.Lifecycle.Kind.RESUMED;
          case PREEMPTED -> QuotaInput.Lifecycle.Kind.PREEMPTED;
          case COMPLETED -> QuotaInput.Lifecycle.Kind.COMPLETED;
          case FAILED -> QuotaInput.Lifecycle.Kind.FAILED;
          default -> null;
        };
        if (kind == null) {
          return new Decoded.Ignored(l.getType() + " changes nothing in quota");
        }
        double assigned = 0;
        for (GpuAssignment a : l.getAssignments()) {
          assigned += a.getShare();
        }
        return new Decoded.Input(new QuotaInput.Lifecycle(l.getJobId(), kind, l.getOccurredAt(),
            assigned));
      }
      case TopicCatalogue.FORECAST_SLOTS -> {
        if (!(value instanceof SlotForecast f)) {
          return wrongType("SlotForecast", value);
        }
        double p = f.getHistoricalPeak();
        if (Double.isNaN(p) || p < 0 || Double.isInfinite(p)) {
          return new Decoded.Refused("VALIDATION", "historicalPeak of " + f.getServiceId()
              + " must be a number >= 0, got " + p);
        }
        return new Decoded.Input(new QuotaInput.Peak(f.getServiceId(), p, f.getComputedAt()));
      }
      case TopicCatalogue.GPU_TELEMETRY -> {
        if (!(value instanceof GpuSample s)) {
          return wrongType("GpuSample", value);
        }
        return sample(s.getGpuId(), s.getCluster(), s.getJobId(), s.getState(),
            s.getUtilizationPct(), s.getSampledAt());
      }
      case TopicCatalogue.GPU_TELEMETRY_BATCHES -> {
        if (!(value instanceof GpuSampleBatch b)) {
          return wrongType("GpuSampleBatch", value);
        }
        List<QuotaInput> inputs = new ArrayList<>();
        // each GPU read in place with the batch's cluster and time: what decoding the sample
        // SampleBatches.sample(b, g) would give (ADR 0040), without building it
        for (GpuReading g : b.getGpus()) {
          Decoded d = sample(g.getGpuId(), b.getCluster(), g.getJobId(), g.getState(),
              g.getUtilizationPct(), b.getSampledAt());
          if (d instanceof Decoded.Refused) {
            return d; // one unusable GPU refuses the scrape, as the validator does
          } else if (d instanceof Decoded.Input in) {
            inputs.add(in.input());
          }
        }
        return inputs.isEmpty()
            ? new Decoded.Ignored("no usable utilisation of a job of this cluster")
            : new Decoded.Inputs(List.copyOf(inputs));
      }
      case TopicCatalogue.CLUSTER_CLOCK -> {
        if (!(value instanceof ClockTick t)) {
          return wrongType("ClockTick", value);
        }
        return config.cluster().equals(t.getCluster())
            ? new Decoded.Input(new QuotaInput.Clock(new Tick(t.getTime(), t.getCluster())))
            : new Decoded.Ignored("tick of cluster " + t.getCluster());
      }
      default -> {
        return new Decoded.Refused("VALIDATION", "unexpected input topic " + topic);
      }
    }
  }

  /**
   * One GPU's utilisation as quota uses it (Q7), from a {@code GpuSample} or a batch's GPU: refused
   * outside [0, 100]; ignored unless an OK reading of a job of this cluster.
   */
  private Decoded sample(String gpuId, String cluster, String jobId, SampleState state,
      Double utilizationPct, Instant sampledAt) {
    Double u = utilizationPct;
    if (u != null && !(u >= 0 && u <= 100)) {
      return new Decoded.Refused("VALIDATION", "utilizationPct of " + gpuId
          + " must be in [0, 100], got " + u);
    }
    if (jobId == null || state != SampleState.OK || u == null
        || !config.cluster().equals(cluster)) {
      return new Decoded.Ignored("no usable utilisation of a job of this cluster");
    }
    return new Decoded.Input(new QuotaInput.Sample(gpuId, jobId, u / 100.0, sampledAt));
  }

  /**
   * The kernel inputs a decoded record is, in the order they are stepped: one for an
   * {@link Decoded.Input}, a batch's for {@link Decoded.Inputs}, none otherwise.
   */
  public static List<QuotaInput> inputs(Decoded d) {
    if (d instanceof Decoded.Input in) {
      return List.of(in.input());
    }
    return d instanceof Decoded.Inputs all ? all.inputs() : List.of();
  }

  private static Decoded wrongType(String expected, Object value) {
    return new Decoded.Refused("VALIDATION", "expected a " + expected + ", got "
        + (value == null ? "null" : value.getClass().getSimpleName()));
  }

  /** The topic an input came from (where its dead letter goes, + ".dlq"). */
  public static String topicOf(QuotaInput.Buffered in) {
    if (in instanceof QuotaInput.Definition) {
      return CONFIG;
    } else if (in instanceof QuotaInput.Submission) {
      return TopicCatalogue.JOBS_SUBMITTED;
    } else if (in instanceof QuotaInput.Lifecycle) {
      return TopicCatalogue.JOBS_LIFECYCLE;
    } else if (in instanceof QuotaInput.Peak) {
      return TopicCatalogue.FORECAST_SLOTS;
    }
    return TopicCatalogue.GPU_TELEMETRY;
  }

  // ==================================================================== effects

  /** What to write for an effect. */
  public sealed interface Out {

    /** A record to publish. */
    record Publish(String topic, String key, SpecificRecord value) implements Out {}

    /**
     * A dead letter for a refused input: the adapter builds it from the input's envelope (the
     * stored one at inbox sequence {@code seq}, or the record just offered when {@code seq} is -1).
     */
    record DeadLetter(long seq, String topic, String key, String errorClass, String reason)
        implements Out {}
  }

  /** The record an effect is published as. */
  public Out encode(QuotaEffect effect) {
    if (effect instanceof QuotaEffect.VerdictIssued v) {
      return new Out.Publish(TopicCatalogue.QUOTA_VERDICTS, v.jobId(), QuotaVerdict.newBuilder()
          .setJobId(v.jobId())
          .setTenant(v.tenant())
          .setQueue(v.queue())
          .setDecidedAt(v.at())
          .setVerdict(io.tideline.events.Verdict.valueOf(v.verdict().name()))
          .setGpus(v.gpus())
          .setPreemptible(v.preemptible())
          .setPreemptionRightGranted(v.preemptionRightGranted())
          .setReason(v.reason())
          .setUnblockHint(v.unblockHint())
          .setFairShareUsage(v.fairShareUsage())
          .setPolicyVersion(v.policyVersion())
          .setTrace(trace(v.trace()))
          .build());
    } else if (effect instanceof QuotaEffect.QueueStateChanged q) {
      return new Out.Publish(TopicCatalogue.QUOTA_STATE, q.queue(), QuotaState.newBuilder()
          .setQueue(q.queue())
          .setTenant(q.tenant())
          .setSegment(q.lane() == Lane.INFERENCE ? QuotaSegment.ONLINE_GUARANTEED
              : QuotaSegment.OFFLINE_GUARANTEED)
          .setGuaranteedGpus(q.guaranteedGpus())
          .setBorrowCapGpus(q.borrowCapGpus())
          .setLendingLimitGpus(q.lendLimitGpus())
          .setUsedGuaranteedGpus(q.usedGuaranteedGpus())
          .setUsedBorrowedGpus(q.usedBorrowedGpus())
          .setFairShareUsage(q.fairShareUsage())
          .setUpdatedAt(q.at())
          .setPolicyVersion(q.policyVersion())
          .build());
    } else if (effect instanceof QuotaEffect.UsageBilled u) {
      return new Out.Publish(TopicCatalogue.BILLING_USAGE, u.tenant(), BillingUsage.newBuilder()
          .setTenant(u.tenant())
          .setQueue(u.queue())
          .setJobId(u.jobId())
          .setFrom(u.from())
          .setTo(u.to())
          .setGpuSeconds(u.gpuSeconds())
          .setGpuModel(u.gpuModel())
          .setSlotClass(SlotClass.valueOf(u.slotClass().name()))
          .setPricing(PricingKind.valueOf(u.basis().name()))
          .setPricePerGpuHour(u.pricePerGpuHour().doubleValue())
          .setAmount(u.amount().doubleValue())
          .setCurrency(u.currency())
          .build());
    } else if (effect instanceof QuotaEffect.DefinitionApplied d) {
      return new Out.Publish(CHANGES, d.cluster(), QuotaChange.newBuilder()
          .setKind(QuotaChangeKind.DEFINITION_APPLIED)
          .setSubject(d.cluster())
          .setOldVersion(d.oldVersion())
          .setNewVersion(d.newVersion())
          .setReason(d.reason())
          .setSource(d.source() == null ? "" : d.source())
          .setAt(d.at())
          .setPolicyVersion(d.policyVersion())
          .build());
    } else if (effect instanceof QuotaEffect.GuaranteeChanged g) {
      return new Out.Publish(CHANGES, g.service(), QuotaChange.newBuilder()
          .setKind(QuotaChangeKind.GUARANTEE_CHANGED)
          .setSubject(g.service())
          .setOldGuaranteeGpus(g.oldGuaranteeGpus())
          .setNewGuaranteeGpus(g.newGuaranteeGpus())
          .setOldPeakGpus(g.oldPeakGpus())
          .setNewPeakGpus(g.newPeakGpus())
          .setReason(g.reason())
          .setSource(TopicCatalogue.FORECAST_SLOTS)
          .setAt(g.at())
          .setPolicyVersion(g.policyVersion())
          .setQueue(g.queue())
          .setOldFloorGpus(g.oldFloorGpus())
          .setNewFloorGpus(g.newFloorGpus())
          .build());
    } else if (effect instanceof QuotaEffect.IdleReclaimRecommended r) {
      return new Out.Publish(RECLAIMS, r.jobId(), QuotaReclaim.newBuilder()
          .setJobId(r.jobId())
          .setTenant(r.tenant())
          .setQueue(r.queue())
          .setAction(r.action() == IdleRecommendation.Action.RECLAIM ? ReclaimAction.RECLAIM
              : ReclaimAction.SHRINK)
          .setCurrentGpus(r.currentGpus())
          .setRecommendedGpus(r.recommendedGpus())
          .setPeakUtilisation(r.peakUtilisation())
          .setEtaBeforeSeconds(r.etaBefore() == null ? null : r.etaBefore().toSeconds())
          .setEtaAfterSeconds(r.etaAfter() == null ? null : r.etaAfter().toSeconds())
          .setReason(r.reason())
          .setDecidedAt(r.at())
          .setPolicyVersion(r.policyVersion())
          .setTrace(trace(r.trace()))
          .build());
    } else if (effect instanceof QuotaEffect.GuaranteeReclaimRequested g) {
      double held = g.borrowers().stream().mapToDouble(QuotaEffect.Borrower::gpus).sum();
      return new Out.Publish(RECLAIMS, g.beneficiaryJobId(), QuotaReclaim.newBuilder()
          .setJobId(g.beneficiaryJobId())
          .setTenant(g.tenant())
          .setQueue(g.queue())
          .setAction(ReclaimAction.GUARANTEE)
          .setCurrentGpus((int) Math.ceil(held - 1e-6))
          .setRecommendedGpus(0)
          .setPeakUtilisation(0)
          .setReason(g.reason())
          .setDecidedAt(g.at())
          .setPolicyVersion(g.policyVersion())
          .setTrace(trace(g.trace()))
          .setBeneficiaryJobId(g.beneficiaryJobId())
          .setBorrowers(g.borrowers().stream().map(b -> ReclaimBorrower.newBuilder()
              .setJobId(b.jobId()).setQueue(b.queue()).setGpus(b.gpus())
              .setBorrowedGpus(b.borrowedGpus()).build()).toList())
          .setReclaimId(g.reclaimId())
          .setAttempt(g.attempt())
          .build());
    } else if (effect instanceof QuotaEffect.InputRefused r) {
      return new Out.DeadLetter(r.seq(), topicOf(r.input()), r.input().key(), r.errorClass(),
          r.reason());
    }
    throw new IllegalArgumentException("no record for " + effect);
  }

  /** Every effect's record, in order. */
  public List<Out> encode(List<QuotaEffect> effects) {
    return effects.stream().map(this::encode).toList();
  }

  static List<RuleTraceEntry> trace(List<TraceEntry> trace) {
    return trace.stream().map(t -> new RuleTraceEntry(t.subject(), t.rule(), t.outcome(),
        t.detail())).toList();
  }

  // ==================================================================== state

  /** The store mapping of the kernel's tables (for the adapter and the REST queries). */
  public QuotaStore store() {
    return new QuotaStore(config);
  }

  /** Restores the kernel's state from the store's records. */
  public QuotaKernelState restore(QuotaStore.Stored stored) {
    return store().restore(stored);
  }

  /** A convenience for readers: the entity of {@code table}/{@code id} as its store record. */
  public SpecificRecord entity(QuotaKernelState s, String table, String id) {
    return store().entity(s, table, id);
  }
}
