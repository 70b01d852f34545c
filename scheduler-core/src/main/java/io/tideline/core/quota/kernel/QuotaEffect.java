package io.tideline.core.quota.kernel;

import io.tideline.core.model.WorkloadClass.Lane;
import io.tideline.core.pricing.ChargeBasis;
import io.tideline.core.quota.IdleRecommendation;
import io.tideline.core.quota.Verdict;
import io.tideline.core.slots.SlotClass;
import io.tideline.core.trace.TraceEntry;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What the {@link QuotaKernel} decided, for the adapter to publish: core types mirroring the quota
 * contracts field by field (the platform's {@code QuotaHost} encodes each as its Avro record).
 * Every effect decided at a tick carries the tick's time as {@link #at()}.
 */
public sealed interface QuotaEffect {

  /** The tick the effect was decided at (for a refusal on arrival: the last tick, if any). */
  Instant at();

  /**
   * An admission verdict ({@code quota.verdicts}, key = job id). {@code gpus} is what was admitted
   * (guaranteed + borrowed) for GUARANTEED and SHARED — placement never places more — and the
   * demand for QUEUED and REJECTED.
   */
  record VerdictIssued(String jobId, String tenant, String queue, Verdict verdict, double gpus,
      boolean preemptible, boolean preemptionRightGranted, String reason, String unblockHint,
      double fairShareUsage, String policyVersion, List<TraceEntry> trace, Instant at)
      implements QuotaEffect {
    public VerdictIssued {
      trace = List.copyOf(trace);
    }
  }

  /** A queue's state ({@code quota.state}, key = queue path): floors, caps, usage, fair share. */
  record QueueStateChanged(String queue, String tenant, Lane lane, double guaranteedGpus,
      double borrowCapGpus, double lendLimitGpus, double usedGuaranteedGpus,
      double usedBorrowedGpus, double fairShareUsage, String policyVersion, Instant at)
      implements QuotaEffect {}

  /** One metered piece of a run inside one slot class ({@code billing.usage}, key = tenant). */
  record UsageBilled(String tenant, String queue, String jobId, Instant from, Instant to,
      double gpuSeconds, String gpuModel, SlotClass slotClass, ChargeBasis basis,
      BigDecimal pricePerGpuHour, BigDecimal amount, String currency, Instant at)
      implements QuotaEffect {}

  /** A definition came into force ({@code quota.changes}, DEFINITION_APPLIED, key = cluster). */
  record DefinitionApplied(String cluster, String oldVersion, String newVersion, String reason,
      String source, String policyVersion, Instant at) implements QuotaEffect {}

  /**
   * An online guarantee moved (Q5) ({@code quota.changes}, GUARANTEE_CHANGED, key = service).
   * Peaks and floors are {@code null} when unknown (a new service, a service no queue serves).
   */
  record GuaranteeChanged(String service, double oldGuaranteeGpus, double newGuaranteeGpus,
      Double oldPeakGpus, Double newPeakGpus, String reason, String queue, Double oldFloorGpus,
      Double newFloorGpus, String policyVersion, Instant at) implements QuotaEffect {}

  /** A Q7 idle recommendation ({@code quota.reclaims} SHRINK / RECLAIM, key = job id). */
  record IdleReclaimRecommended(String jobId, String tenant, String queue,
      IdleRecommendation.Action action, int currentGpus, int recommendedGpus,
      double peakUtilisation, Duration etaBefore, Duration etaAfter, String reason,
      String policyVersion, List<TraceEntry> trace, Instant at) implements QuotaEffect {
    public IdleReclaimRecommended {
      trace = List.copyOf(trace);
    }
  }

  /**
   * A Q3 guarantee reclaim request ({@code quota.reclaims} GUARANTEE, key = the guaranteed job):
   * evict {@code borrowers} so that {@code beneficiaryJobId}, admitted GUARANTEED, gets its floor.
   *
   * @param reclaimId stable id of this request: {@code <cluster>/guarantee/<job>/<tick ms>}
   * @param beneficiaryJobId the guaranteed job the freed GPUs are for
   * @param tenant its tenant
   * @param queue its queue
   * @param beneficiaryGpus the GPUs it was admitted for
   * @param borrowers the running borrowers to evict, in quota's order
   * @param attempt 1 for the first request, n for the n-th (re-requested after the retry interval)
   * @param reason why, in words
   * @param policyVersion rules / definition version
   * @param trace the Q3 lines of the admission that named the borrowers
   * @param at the tick
   */
  record GuaranteeReclaimRequested(String reclaimId, String beneficiaryJobId, String tenant,
      String queue, double beneficiaryGpus, List<Borrower> borrowers, int attempt, String reason,
      String policyVersion, List<TraceEntry> trace, Instant at) implements QuotaEffect {
    public GuaranteeReclaimRequested {
      borrowers = List.copyOf(borrowers);
      trace = List.copyOf(trace);
    }
  }

  /**
   * A borrower named in a guarantee reclaim, as quota's ledger holds it.
   *
   * @param jobId the running borrower
   * @param queue the queue it is charged to
   * @param gpus GPUs it holds (guaranteed + borrowed)
   * @param borrowedGpus of which borrowed beyond its queue's floor
   */
  record Borrower(String jobId, String queue, double gpus, double borrowedGpus) {}

  /**
   * An input refused, to be dead-lettered with the reason on {@code <its topic>.dlq}.
   *
   * @param seq the inbox sequence the input had (its stored envelope), or {@code -1} when it was
   *     refused on arrival (the adapter still holds its envelope)
   * @param input the input
   * @param errorClass {@code VALIDATION}
   * @param reason why, in words
   * @param at the tick that refused it, or the last tick for a refusal on arrival (or the input's
   *     own time before any tick)
   */
  record InputRefused(long seq, QuotaInput.Buffered input, String errorClass, String reason,
      Instant at) implements QuotaEffect {}
}
