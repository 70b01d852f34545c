package io.tideline.notifier.join;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.preemption.TroughSlot;
import io.tideline.core.scheduling.PlacementPolicy;
import io.tideline.core.scheduling.PlacementState;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.NodeInventory;
import io.tideline.events.Notice;
import io.tideline.events.NoticeKind;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.QueuePosition;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.ReclaimAction;
import io.tideline.events.Verdict;
import io.tideline.events.Victim;
import io.tideline.notifier.compose.Decisions;
import io.tideline.notifier.compose.Lang;
import io.tideline.notifier.compose.NoticeComposer;
import io.tideline.notifier.join.EvictionJoin.Explained;
import io.tideline.notifier.join.EvictionJoin.Step;
import io.tideline.platform.kernel.HostRecord;
import io.tideline.platform.kernel.HostResult;
import io.tideline.platform.kernel.PlacementHost;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.ClusterNodes;
import io.tideline.testkit.JobSubmissions;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The notifier's join reads the evictions placement's own kernel writes (the code placement-svc's
 * single writer runs, {@link PlacementHost}): an eviction names the preemption decision that
 * ordered it in {@code decisionId} and is keyed {@code <decisionId>/<jobId>}, and a SHRINK carries
 * its new size and stretched run time. If placement ever wrote another id or dropped a field, the
 * notices would go out unexplained or without the new size, and these scenarios fail.
 */
class PlacementEvictionContractTest {

  static final String C = "c1";
  static final Instant T0 = Instant.parse("2026-11-02T13:00:00Z");

  PlacementHost placement;
  PlacementState state;
  final List<SpecificRecord> published = new ArrayList<>();
  final List<String> refused = new ArrayList<>();

  @BeforeEach
  void placementWithTwoRunningJobs() {
    placement = new PlacementHost(PlacementPolicy.defaults(C));
    state = placement.empty();
    tick(T0);
    for (NodeInventory n : ClusterNodes.joined(C, 1, T0)) {
      offer(TopicCatalogue.CLUSTER_INVENTORY, n);
    }
    admit(JobSubmissions.training("pia-job-1").user("pia").gpus(4).gang(4, 1).at(T0)
        .expectedDuration(Duration.ofHours(10)).build());
    admit(JobSubmissions.training("qiu-job-1").user("qiu").gpus(4).gang(4, 1).at(T0).build());
    tick(T0.plusSeconds(1));
    for (String job : List.of("pia-job-1", "qiu-job-1")) {
      assertThat(of(PlacementDecision.class)).as(job + " placed").anySatisfy(d -> {
        assertThat(d.getJobId()).isEqualTo(job);
        assertThat(d.getOutcome()).isEqualTo(PlacementOutcome.PLACED);
      });
      offer(TopicCatalogue.JOBS_LIFECYCLE, JobLifecycle.newBuilder().setJobId(job).setCluster(C)
          .setType(LifecycleType.STARTED).setOccurredAt(T0.plusSeconds(2)).build());
    }
    tick(T0.plusSeconds(2));
    published.clear();
  }

  @Test
  void shouldJoinPlacementsShrinkWithItsDecisionAndTellTheNewSizeAndStretchedRunTime() {
    Instant t = T0.plus(Duration.ofHours(1));
    Victim v = Decisions.victim("pia-job-1", "pia");
    v.setShrinkToGpus(2);
    PreemptionDecision d = decided(Decisions.reclaim("dec-shrink-pia", "shrink/pia-job-1",
        "SHRINK", "Q7 shrink", "GPU utilisation 31% < 50% over the last 2 h", v, t));

    Eviction e = applied(d, t);

    assertThat(e.getKind()).isEqualTo(EvictionKind.SHRINK);
    assertThat(e.getDecisionId()).isEqualTo("dec-shrink-pia");
    for (boolean decisionFirst : List.of(true, false)) {
      Explained x = joined(d, e, decisionFirst);
      Notice n = NoticeComposer.evicted(x.eviction(), x.decision(), x.victim(), null, CONTEXT);
      assertThat(n.getKind()).isEqualTo(NoticeKind.SHRUNK);
      assertThat(n.getNoticeId()).isEqualTo("dec-shrink-pia/pia-job-1/SHRUNK");
      assertThat(n.getUserId()).isEqualTo("pia");
      assertThat(n.getGpusAfter()).isEqualTo(2);
      // 10 h on 4 GPUs is 20 h on 2 (Q7), as placement computed it from the submission
      assertThat(n.getExpectedRunSecondsAfter()).isEqualTo(Duration.ofHours(20).toSeconds());
      assertThat(n.getReason()).contains("GPU utilisation 31% < 50% over the last 2 h");
    }
  }

  @Test
  void shouldJoinPlacementsIdleReclaimWithItsDecisionAsAReclaimedNotice() {
    Instant t = T0.plus(Duration.ofHours(1));
    PreemptionDecision d = decided(Decisions.reclaim("dec-idle-qiu", "idle/qiu-job-1",
        "IDLE_RECLAIM", "Q7 idle reclaim", "no GPU use for 45 min",
        Decisions.victim("qiu-job-1", "qiu"), t));

    Eviction e = applied(d, t);

    assertThat(e.getKind()).isEqualTo(EvictionKind.RECLAIM);
    Explained x = joined(d, e, false);
    Notice n = NoticeComposer.evicted(x.eviction(), x.decision(), x.victim(), null, CONTEXT);
    assertThat(n.getKind()).isEqualTo(NoticeKind.RECLAIMED);
    assertThat(n.getDecisionId()).isEqualTo("dec-idle-qiu");
    assertThat(n.getReason()).contains("no GPU use for 45 min");
  }

  // ---- helpers ------------------------------------------------------------------------------

  /** The decision as preemption writes it, against the ledger version placement has reached. */
  private PreemptionDecision decided(PreemptionDecision d) {
    d.setCluster(C);
    d.setLedgerVersion(state.cluster().version());
    return d;
  }

  /**
   * Placement applies {@code d} at {@code t}: the one eviction it publishes. Quota names the
   * victim first (its Q7 recommendation on {@code quota.reclaims}): placement evicts on a reclaim
   * trigger only what quota's reclaim named (ADR 0029).
   */
  private Eviction applied(PreemptionDecision d, Instant t) {
    tick(t);
    Victim v = d.getVictims().get(0);
    boolean shrink = "SHRINK".equals(d.getTrigger());
    offer(TopicCatalogue.QUOTA_RECLAIMS, QuotaReclaim.newBuilder().setJobId(v.getJobId())
        .setTenant("research").setQueue("q")
        .setAction(shrink ? ReclaimAction.SHRINK : ReclaimAction.RECLAIM).setCurrentGpus(4)
        .setRecommendedGpus(shrink ? v.getShrinkToGpus() : 0).setPeakUtilisation(0.1)
        .setReason("Q7 recommendation").setDecidedAt(t)
        .setPolicyVersion("q").build());
    offer(TopicCatalogue.PREEMPTION_DECISIONS, d);
    tick(t.plusSeconds(1));
    assertThat(refused).isEmpty();
    List<Eviction> evictions = of(Eviction.class);
    assertThat(evictions).singleElement().satisfies(e -> {
      assertThat(e.getJobId()).isEqualTo(d.getVictims().get(0).getJobId());
      assertThat(e.getEvictionId()).isEqualTo(d.getDecisionId() + "/" + e.getJobId());
    });
    return evictions.get(0);
  }

  /** The join's outcome for {@code d} and {@code e}, read in the given order. */
  private static Explained joined(PreemptionDecision d, Eviction e, boolean decisionFirst) {
    EvictionJoin join = new EvictionJoin(Duration.ofHours(1), Duration.ofMinutes(10));
    Step first = decisionFirst ? join.decision(d) : join.eviction(e);
    Step second = decisionFirst ? join.eviction(e) : join.decision(d);
    assertThat(first.outcomes()).isEmpty();
    assertThat(second.outcomes()).singleElement().isInstanceOf(Explained.class);
    assertThat(join.decisionsWaiting() + join.evictionsWaiting()).isZero();
    return (Explained) second.outcomes().get(0);
  }

  private void admit(JobSubmitted job) {
    offer(TopicCatalogue.JOBS_SUBMITTED, job);
    offer(TopicCatalogue.QUOTA_VERDICTS, QuotaVerdict.newBuilder().setJobId(job.getJobId())
        .setTenant(job.getTenant()).setQueue("q").setDecidedAt(job.getSubmittedAt())
        .setVerdict(Verdict.GUARANTEED).setGpus(job.getResources().getGpuCount())
        .setPreemptible(job.getPreemptible()).setPreemptionRightGranted(false)
        .setReason("test").setPolicyVersion("q").build());
  }

  private void tick(Instant at) {
    offer(TopicCatalogue.CLUSTER_CLOCK, ClockTick.newBuilder().setCluster(C).setTime(at)
        .setSequence(at.getEpochSecond()).setIntervalMillis(60_000)
        .setSource(ClockSource.SIMULATED).build());
  }

  private void offer(String topic, SpecificRecord value) {
    HostResult<PlacementState> r = placement.offer(placement.clock(state), state, topic, value,
        null);
    state = r.state();
    r.refused().forEach(x -> refused.add(topic + ": " + x.reason()));
    r.records().stream().map(HostRecord::value).forEach(published::add);
  }

  private <T> List<T> of(Class<T> type) {
    return published.stream().filter(type::isInstance).map(type::cast).toList();
  }

  static final NoticeComposer.Context CONTEXT = new NoticeComposer.Context() {
    @Override
    public QueuePosition queue(String jobId) {
      return null;
    }

    @Override
    public Collection<TroughSlot> troughs() {
      return List.of();
    }

    @Override
    public NoticeComposer.Profile profile(String userId) {
      return new NoticeComposer.Profile(Lang.EN, ZoneId.of("UTC"));
    }

    @Override
    public String quotaUrl(String tenant, String jobId) {
      return "https://quota.example.com/request?tenant=" + tenant + "&job=" + jobId;
    }
  };
}
