package io.tideline.core.preemption.kernel;

import io.tideline.core.trace.TraceEntry;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/** What one step of the preemption kernel decided. */
public sealed interface PreemptionEffect permits PreemptionEffect.Decided,
    PreemptionEffect.Refused {

  /**
   * One decision ({@code preemption.decisions}): PREEMPT the victims or REFUSED, with the figures
   * and the full trace (P7).
   *
   * @param decisionId unique id
   * @param requestId the request or reclaim answered
   * @param subject the preemptor job, {@code reservation/<id>}, or the reclaim's subject
   * @param trigger UNPLACEABLE, RESERVATION_START, IDLE_RECLAIM, SHRINK or GUARANTEE_RECLAIM
   * @param preempts whether to evict
   * @param preemptorScore P1 score of the preemptor (0 for reclaims)
   * @param victims the victims, cheapest first
   * @param totalCostGpuHours P4 cost of the victims
   * @param gainGpuHours P5 gain
   * @param ledgerVersion the ledger version decided on (the view's)
   * @param policyVersion the rules' version
   * @param at event time (the tick)
   * @param trace the rules applied, capped per {@link PreemptionPolicy#traceCandidatesMax()}
   */
  record Decided(String decisionId, String requestId, String subject, String trigger,
      boolean preempts, double preemptorScore, List<DecidedVictim> victims,
      double totalCostGpuHours, double gainGpuHours, long ledgerVersion, String policyVersion,
      Instant at, List<TraceEntry> trace) implements PreemptionEffect {
    public Decided {
      Objects.requireNonNull(decisionId, "decisionId");
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(subject, "subject");
      Objects.requireNonNull(trigger, "trigger");
      Objects.requireNonNull(at, "at");
      victims = List.copyOf(victims);
      trace = List.copyOf(trace);
    }
  }

  /**
   * One victim with what justifies it and what it gets back (P4, P6).
   *
   * @param jobId the victim
   * @param tenant its tenant
   * @param user its owner
   * @param score its P1 score
   * @param gpus GPUs it frees
   * @param costGpuHours its P4 migration cost
   * @param queueBoostMinutes P6 queue boost
   * @param retryAfter P6 off-peak retry hint, or {@code null}
   * @param sharedPoolFallback P6 shared-pool fallback
   * @param shrinkToGpus SHRINK: GPUs it keeps; 0 otherwise
   */
  record DecidedVictim(String jobId, String tenant, String user, double score, double gpus,
      double costGpuHours, double queueBoostMinutes, Instant retryAfter,
      boolean sharedPoolFallback, int shrinkToGpus) {}

  /** An input could not be used (see the placement kernel's {@code Refused}). */
  record Refused(String reason, long inboxSeq) implements PreemptionEffect {
    public Refused {
      Objects.requireNonNull(reason, "reason");
    }
  }
}
