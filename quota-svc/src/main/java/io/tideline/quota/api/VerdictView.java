package io.tideline.quota.api;

import io.tideline.core.quota.AdmissionVerdict;
import io.tideline.core.quota.Verdict;
import io.tideline.core.trace.TraceEntry;
import java.time.Instant;
import java.util.List;

/**
 * A job's last verdict as {@code GET /quota/jobs/{id}/verdict} serves it: the kernel's stored
 * {@link AdmissionVerdict} with the job's tenant, in a stable JSON shape.
 */
public record VerdictView(String jobId, String tenant, String queue, Verdict verdict,
    double guaranteedGpus, double borrowedGpus, List<String> reclaimJobIds,
    boolean preemptionRightGranted, String reason, String unblockedBy, List<TraceEntry> trace,
    String policyVersion, Instant decidedAt) {

  static VerdictView of(AdmissionVerdict v, String tenant) {
    return new VerdictView(v.jobId(), tenant, v.queue(), v.verdict(), v.guaranteedGpus(),
        v.borrowedGpus(), v.reclaimJobIds(), v.preemptionRightGranted(), v.reason(),
        v.unblockedBy(), v.trace(), v.policyVersion(), v.decidedAt());
  }
}
