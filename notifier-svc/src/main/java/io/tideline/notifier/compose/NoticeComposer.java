package io.tideline.notifier.compose;

import io.tideline.core.preemption.ResumeEstimate;
import io.tideline.core.preemption.ResumeEstimator;
import io.tideline.core.preemption.TroughSlot;
import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.JobLifecycle;
import io.tideline.events.Notice;
import io.tideline.events.NoticeKind;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.QueuePosition;
import io.tideline.events.Victim;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Collection;
import java.util.List;

/**
 * Turns applied facts into {@link Notice}s (P7): one per applied eviction of a job — preempted,
 * reclaimed or shrunk — with the reason from the rule trace of the decision that ordered it, the
 * queue position, the estimated resume time and how it was estimated, the compensation and the
 * quota-request link; and the resumed and quota-request notices. Never from a decision alone: a
 * decision placement did not apply happened to nobody. Pure: everything it reads is passed in
 * through {@link Context}, time is event time.
 */
public final class NoticeComposer {

  /** {@code PreemptionDecision.trigger} of quota's Q3 guarantee reclaims. */
  static final String GUARANTEE_RECLAIM = "GUARANTEE_RECLAIM";

  /**
   * A user's language and zone.
   *
   * @param lang language of the notice
   * @param zone zone the times are shown in
   */
  public record Profile(Lang lang, ZoneId zone) {}

  /**
   * Named owner of a job.
   *
   * @param user owner
   * @param tenant owner's tenant
   */
  public record Owner(String user, String tenant) {}

  /** What the composer may look up. */
  public interface Context {
    /** The job's current queue position (placement.queue), or null. */
    QueuePosition queue(String jobId);

    /** Forecast trough slots (forecast.slots). */
    Collection<TroughSlot> troughs();

    /** The user's language and zone. */
    Profile profile(String userId);

    /** The quota-request link for a tenant and job. */
    String quotaUrl(String tenant, String jobId);
  }

  private NoticeComposer() {}

  /**
   * The notice of an applied eviction (P7; notices follow applied facts): PREEMPTED for a
   * PREEMPT, RECLAIMED for a RECLAIM, SHRUNK for a SHRINK; null for a MIGRATE (not the owner's
   * concern) or when no owner is known. The decision that ordered it, when the join found it,
   * supplies the why (its rule trace), the owner (its victim entry) and the compensation (P6);
   * without it the eviction's own reason is told. The notice's time is the eviction's.
   *
   * @param e the applied eviction
   * @param d the preemption decision that ordered it, or null
   * @param v the decision's entry for the evicted job, or null (then {@code owner} is used)
   * @param owner the job's owner as known from its submission, or null
   */
  public static Notice evicted(Eviction e, PreemptionDecision d, Victim v, Owner owner,
      Context c) {
    NoticeKind kind = kindOf(e.getKind());
    Owner who = v != null ? new Owner(v.getUser(), v.getTenant()) : owner;
    if (kind == null || who == null) {
      return null;
    }
    Profile p = c.profile(who.user());
    Instant now = e.getIssuedAt();
    QueuePosition q = c.queue(e.getJobId());
    Instant queued = q == null ? null : q.getEstimatedStart();
    Notice.Builder b = base(NoticeIds.of(e.getDecisionId(), e.getJobId(), kind), who.user(),
        e.getJobId(), kind, p, e.getDecisionId(), now.toEpochMilli())
        .setQuotaRequestUrl(c.quotaUrl(who.tenant(), e.getJobId()));
    String quotaWhy = d == null ? null : PreemptionExplainer.quotaReason(d);
    switch (kind) {
      case PREEMPTED -> {
        // 1. Why: the decision's trace (a Q3 guarantee reclaim in quota's words), else placement's.
        String reason;
        if (d == null || v == null) {
          reason = Wording.preemptedUnexplained(e.getJobId(), e.getReason(), p.lang());
        } else if (GUARANTEE_RECLAIM.equals(d.getTrigger())) {
          reason = Wording.guaranteeReclaimed(e.getJobId(),
              quotaWhy != null ? quotaWhy : e.getReason(), d.getPolicyVersion(), p.lang());
        } else {
          reason = Wording.preemptionReason(PreemptionExplainer.explain(d, v), p.lang());
        }
        // 2. Where it stands and when it should resume; 3. what it gets in return.
        ResumeEstimate eta = ResumeEstimator.estimate(now, queued, c.troughs(),
            v == null ? null : v.getRetryAfter());
        b.setReason(reason)
            .setQueuePosition(q == null ? null : q.getPosition())
            .setEstimatedResume(eta.at())
            .setEstimateBasis(eta.basis().code())
            .setCompensation(v == null ? "" : Wording.compensation(v.getQueueBoost(),
                v.getRetryAfter(), v.getSharedPoolFallback(), p.zone(), p.lang()));
      }
      case RECLAIMED -> b.setReason(Wording.reclaimed(e.getJobId(),
          quotaWhy != null ? quotaWhy : e.getReason(), p.lang()));
      case SHRUNK -> {
        // Q7 enacted: checkpointed, stopped, queued again on fewer GPUs; its run time stretched.
        int to = shrinkTo(e, v);
        Long runAfter = e.getExpectedDurationSecondsAfter();
        ResumeEstimate eta = ResumeEstimator.estimate(now, queued, List.of(), null);
        b.setReason(Wording.shrunk(e.getJobId(), to, runAfter,
                quotaWhy != null ? quotaWhy : e.getReason(), p.lang()))
            .setQueuePosition(q == null ? null : q.getPosition())
            .setEstimatedResume(eta.at())
            .setEstimateBasis(eta.basis().code())
            .setGpusAfter(to > 0 ? to : null)
            .setExpectedRunSecondsAfter(runAfter);
      }
      default -> throw new IllegalStateException("no eviction notice of kind " + kind);
    }
    return b.build();
  }

  /** The notice kind an eviction of {@code kind} gives, or null (MIGRATE: none). */
  public static NoticeKind kindOf(EvictionKind kind) {
    return switch (kind) {
      case PREEMPT -> NoticeKind.PREEMPTED;
      case RECLAIM -> NoticeKind.RECLAIMED;
      case SHRINK -> NoticeKind.SHRUNK;
      case MIGRATE -> null;
    };
  }

  /** The GPUs a shrunk job restarts with: the eviction's, else the decision's, else its target. */
  private static int shrinkTo(Eviction e, Victim v) {
    if (e.getShrinkToGpus() != null) {
      return e.getShrinkToGpus();
    }
    if (v != null && v.getShrinkToGpus() != null) {
      return v.getShrinkToGpus();
    }
    return e.getTarget().size();
  }

  /** The RESUMED notice for a lifecycle fact of a job whose owner is known. */
  public static Notice resumed(JobLifecycle l, Owner owner, Context c) {
    Profile p = c.profile(owner.user());
    String source = l.getDecisionId() != null ? l.getDecisionId()
        : "lifecycle@" + l.getOccurredAt().toEpochMilli();
    return base(NoticeIds.of(source, l.getJobId(), NoticeKind.RESUMED), owner.user(),
        l.getJobId(), NoticeKind.RESUMED, p, source, l.getOccurredAt().toEpochMilli())
        .setReason(Wording.resumed(l.getJobId(), l.getAssignments().size(), p.lang()))
        .setQuotaRequestUrl(c.quotaUrl(owner.tenant(), l.getJobId()))
        .build();
  }

  /** The QUOTA_REQUEST_ACK notice for a quota request. */
  public static Notice quotaAck(QuotaRequest r, Context c) {
    Profile p = c.profile(r.userId());
    String source = "quota-request:" + r.requestId();
    return base(NoticeIds.of(source, r.jobId(), NoticeKind.QUOTA_REQUEST_ACK), r.userId(),
        r.jobId(), NoticeKind.QUOTA_REQUEST_ACK, p, source, r.requestedAt().toEpochMilli())
        .setReason(Wording.quotaAck(r.requestId(), r.tenant(), r.gpus(), p.lang()))
        .build();
  }

  private static Notice.Builder base(String id, String user, String jobId, NoticeKind kind,
      Profile p, String decisionId, long at) {
    return Notice.newBuilder()
        .setNoticeId(id)
        .setUserId(user)
        .setJobId(jobId)
        .setKind(kind)
        .setLocale(p.lang().tag())
        .setQueuePosition(null)
        .setEstimatedResume(null)
        .setEstimateBasis("")
        .setCompensation("")
        .setQuotaRequestUrl("")
        .setDecisionId(decisionId)
        .setCreatedAt(java.time.Instant.ofEpochMilli(at));
  }
}
