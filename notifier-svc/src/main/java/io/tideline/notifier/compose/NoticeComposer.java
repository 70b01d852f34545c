package io.tideline.notifier.compose;

import io.tideline.events.Eviction;
import io.tideline.events.JobLifecycle;
import io.tideline.events.Notice;
import io.tideline.events.NoticeKind;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.QueuePosition;
import io.tideline.events.Victim;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Turns decisions and facts into {@link Notice}s (P7): one per preempted job, with the reason from
 * the rule trace, the queue position, the estimated resume time and how it was estimated, the
 * compensation and the quota-request link; and the resumed, reclaimed, shrink and quota-request
 * notices. Pure: everything it reads is passed in through {@link Context}, time is event time.
 */
public final class NoticeComposer {

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

  /** One PREEMPTED notice per victim of a PREEMPT decision; none for a refusal. */
  public static List<Notice> preempted(PreemptionDecision d, Context c) {
    List<Notice> out = new ArrayList<>();
    if (d.getOutcome() != PreemptionOutcome.PREEMPT) {
      return out;
    }
    for (Victim v : d.getVictims()) {
      Profile p = c.profile(v.getUser());
      // 1. Why, from the rule trace.
      String reason = Wording.preemptionReason(PreemptionExplainer.explain(d, v), p.lang());
      // 2. Where it stands and when it should resume.
      QueuePosition q = c.queue(v.getJobId());
      ResumeEstimate eta = ResumeEstimator.estimate(d.getDecidedAt(),
          q == null ? null : q.getEstimatedStart(), c.troughs(), v.getRetryAfter());
      // 3. What it gets in return, and where to ask for guaranteed quota.
      String compensation = Wording.compensation(v.getQueueBoost(), v.getRetryAfter(),
          v.getSharedPoolFallback(), p.zone(), p.lang());
      out.add(Notice.newBuilder()
          .setNoticeId(NoticeIds.of(d.getDecisionId(), v.getJobId(), NoticeKind.PREEMPTED))
          .setUserId(v.getUser())
          .setJobId(v.getJobId())
          .setKind(NoticeKind.PREEMPTED)
          .setLocale(p.lang().tag())
          .setReason(reason)
          .setQueuePosition(q == null ? null : q.getPosition())
          .setEstimatedResume(eta.at())
          .setEstimateBasis(eta.basis().code())
          .setCompensation(compensation)
          .setQuotaRequestUrl(c.quotaUrl(v.getTenant(), v.getJobId()))
          .setDecisionId(d.getDecisionId())
          .setCreatedAt(d.getDecidedAt())
          .build());
    }
    return out;
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

  /** The RECLAIMED or SHRINK_RECOMMENDED notice for an eviction; null for other kinds. */
  public static Notice evicted(Eviction e, Owner owner, Context c) {
    NoticeKind kind = switch (e.getKind()) {
      case RECLAIM -> NoticeKind.RECLAIMED;
      case SHRINK -> NoticeKind.SHRINK_RECOMMENDED;
      default -> null;
    };
    if (kind == null) {
      return null;
    }
    Profile p = c.profile(owner.user());
    String reason = kind == NoticeKind.RECLAIMED
        ? Wording.reclaimed(e.getJobId(), e.getReason(), p.lang())
        : Wording.shrink(e.getJobId(), e.getReason(), e.getTarget().size(), p.lang());
    return base(NoticeIds.of(e.getDecisionId(), e.getJobId(), kind), owner.user(), e.getJobId(),
        kind, p, e.getDecisionId(), e.getIssuedAt().toEpochMilli())
        .setReason(reason)
        .setQuotaRequestUrl(c.quotaUrl(owner.tenant(), e.getJobId()))
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
