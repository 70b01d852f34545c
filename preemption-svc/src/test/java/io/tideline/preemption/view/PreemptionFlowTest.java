package io.tideline.preemption.view;

import io.tideline.core.preemption.kernel.PreemptionPolicy;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.DeadLetter;
import io.tideline.events.GpuAssignment;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.ReclaimAction;
import io.tideline.events.RuleTraceEntry;
import io.tideline.events.Victim;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.RegistryFixture;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenarios of the preemption topology: events build the view, placement's request gets a
 * decision with its full rule trace, reservations and idle reclaims trigger decisions, bad input
 * is dead-lettered and the stream reads on. A two-node cluster (n01, n02, 8 GPUs each), times on
 * 2026-11-02.
 */
class PreemptionFlowTest {

  static final Instant T11 = Instant.parse("2026-11-02T11:00:00Z");
  static final Instant T14 = Instant.parse("2026-11-02T14:00:00Z");
  @RegisterExtension static final RegistryFixture registry = new RegistryFixture();
  ViewDriver d;

  @BeforeEach
  void driver() {
    d = new ViewDriver(registry.url());
    d.nodes(2, T11);
  }

  @AfterEach
  void close() {
    d.close();
  }

  static Instant at(String hhmmss) {
    return Instant.parse("2026-11-02T" + hhmmss + "Z");
  }

  static JobSubmitted training(String id) {
    return JobSubmissions.training(id).at(T11).build();
  }

  /** An 8-GPU online scale-up on one node that asked quota for the right to preempt. */
  static JobSubmitted online(String id) {
    return JobSubmissions.onlineInference(id, "search", 1.0).gpus(8).gang(8, 1).at(T14).build();
  }

  /** {@code id} runs on all of {@code node} since {@code started}, checkpointed at {@code ckpt}. */
  void running(String id, String node, Instant started, Instant ckpt) {
    d.admit(training(id), false, T11);
    d.placed(id, node, 8, started);
    d.lifecycle(id, LifecycleType.STARTED, started);
    if (ckpt != null) {
      d.lifecycle(id, LifecycleType.CHECKPOINTED, ckpt);
    }
  }

  static RuleTraceEntry line(PreemptionDecision pd, String subject, String rule) {
    return pd.getTrace().stream()
        .filter(e -> e.getSubject().equals(subject) && e.getRule().equals(rule)).findFirst()
        .orElseThrow(() -> new AssertionError("no " + rule + " line for " + subject + " in "
            + pd.getTrace()));
  }

  static List<String> victims(PreemptionDecision pd) {
    return pd.getVictims().stream().map(Victim::getJobId).toList();
  }

  @Test
  void shouldAnswerARequestWithTheEligibleVictimTheRuleTraceAndTheLedgerVersion() {
    running("train-a", "n01", at("11:00:00"), at("13:58:00"));
    running("train-b", "n02", at("13:50:00"), null); // protected until 14:05
    d.admit(online("inf-1"), true, T14);
    long version = d.ledgerVersion();

    String requestId = d.request(online("inf-1"), T14);

    List<PreemptionDecision> out = d.decisions();
    assertThat(out).hasSize(1);
    PreemptionDecision pd = out.get(0);
    assertThat(pd.getRequestId()).isEqualTo(requestId);
    assertThat(pd.getOutcome()).isEqualTo(PreemptionOutcome.PREEMPT);
    assertThat(pd.getTrigger()).isEqualTo("UNPLACEABLE");
    assertThat(victims(pd)).containsExactly("train-a");
    assertThat(pd.getLedgerVersion()).isEqualTo(version);
    assertThat(pd.getPolicyVersion()).isEqualTo("preemption-v1");
    assertThat(pd.getDecidedAt()).isEqualTo(T14.plusMillis(1)); // the tick after the request
    assertThat(pd.getGainGpuHours()).isGreaterThan(pd.getTotalCostGpuHours() * 1.5);
    assertThat(pd.getTotalCostGpuHours()).isPositive();
    assertThat(line(pd, "train-b", "P3 protection").getDetail())
        .isEqualTo("protected until 2026-11-02T14:05:00Z");
    assertThat(line(pd, "train-a", "victim set").getOutcome()).isEqualTo("TAKE");
    Victim v = pd.getVictims().get(0);
    assertThat(v.getGpus()).isEqualTo(8.0);
    assertThat(v.getQueueBoost()).isEqualTo(30.0);
    assertThat(v.getRetryAfter()).isEqualTo(Instant.parse("2026-11-03T00:00:00Z"));
    assertThat(v.getSharedPoolFallback()).isTrue();
    assertThat(d.kept(pd.getDecisionId()).toString()).isEqualTo(pd.toString());
    assertThat(Explain.render(pd)).contains("train-a").contains("protected until 2026-11-02T14:05");
  }

  @Test
  void shouldShowTheCooldownOfARecentlyPreemptedJobAndTakeItOnceTheCooldownEnds() {
    running("train-a", "n01", at("11:00:00"), at("13:58:00"));
    d.lifecycle("train-a", LifecycleType.PREEMPTED, at("13:35:00"));
    d.lifecycle("train-a", LifecycleType.RESUMED, at("13:36:00")); // protected until 13:51
    running("train-b", "n02", at("13:50:00"), null);
    d.admit(online("inf-1"), true, T14);

    d.request(online("inf-1"), at("14:04:59"));
    d.request(online("inf-1"), at("14:05:00"));

    List<PreemptionDecision> out = d.decisions();
    assertThat(out).hasSize(2);
    assertThat(out.get(0).getOutcome()).isEqualTo(PreemptionOutcome.REFUSED);
    assertThat(line(out.get(0), "train-a", "P3 cooldown").getDetail())
        .isEqualTo("cooldown until 2026-11-02T14:05:00Z");
    assertThat(line(out.get(0), "train-b", "P3 protection").getDetail())
        .isEqualTo("protected until 2026-11-02T14:05:00Z");
    assertThat(out.get(1).getOutcome()).isEqualTo(PreemptionOutcome.PREEMPT);
  }

  @Test
  void shouldRefuseARequestForAnUnknownJobAndAStaleOneForAJobAlreadyRunning() {
    running("train-a", "n01", at("11:00:00"), null);

    d.request(online("ghost"), T14);
    d.request(training("train-a"), T14);

    List<PreemptionDecision> out = d.decisions();
    assertThat(out).extracting(PreemptionDecision::getOutcome)
        .containsExactly(PreemptionOutcome.REFUSED, PreemptionOutcome.REFUSED);
    assertThat(line(out.get(0), "ghost", "request").getDetail())
        .isEqualTo("unknown job: no submission of ghost seen");
    assertThat(line(out.get(1), "train-a", "request").getDetail())
        .startsWith("stale request: train-a already runs");
  }

  @Test
  void shouldTakeRightsAndPreemptibilityFromQuotaNotFromTheSubmitter() {
    // train-a declares itself preemptible, but quota's verdict says no
    d.send(TopicCatalogue.JOBS_SUBMITTED, "train-a", training("train-a"), T11);
    d.verdict(training("train-a"), false, false, T11);
    d.placed("train-a", "n01", 8, T11);
    running("train-b", "n02", at("11:00:00"), at("13:55:00"));
    // inf-1 asked for the right to preempt; quota did not grant it
    d.send(TopicCatalogue.JOBS_SUBMITTED, "inf-1", online("inf-1"), T14);
    d.verdict(online("inf-1"), false, false, T14);
    JobSubmitted inf2 = JobSubmissions.onlineInference("inf-2", "search", 1.0).gpus(8)
        .gang(8, 1).at(T14).build();
    d.admit(inf2, true, T14);

    d.request(online("inf-1"), T14);
    d.request(inf2, T14);

    List<PreemptionDecision> out = d.decisions();
    assertThat(out.get(0).getOutcome()).isEqualTo(PreemptionOutcome.REFUSED);
    assertThat(line(out.get(0), "inf-1", "W4 right to preempt").getDetail())
        .isEqualTo("right to preempt not granted by quota");
    assertThat(victims(out.get(1))).containsExactly("train-b");
    assertThat(line(out.get(1), "train-a", "W4 preemptible").getOutcome()).isEqualTo("REFUSE");
  }

  @Test
  void shouldNotPreemptWhenThePreemptorFitsOnceAJobIsReleased() {
    running("train-a", "n01", at("11:00:00"), null);
    running("train-b", "n02", at("11:00:00"), null);
    d.released("train-b", at("13:59:00"));
    d.admit(online("inf-1"), true, T14);

    d.request(online("inf-1"), T14);

    PreemptionDecision pd = d.decisions().get(0);
    assertThat(pd.getOutcome()).isEqualTo(PreemptionOutcome.REFUSED);
    assertThat(line(pd, "inf-1", "feasible placement").getDetail())
        .isEqualTo("fits without evicting anyone");
  }

  @Test
  void shouldRecordEveryAcceptedInputOnTheRetainedLogInTheOrderTheViewDecided() {
    running("train-a", "n01", at("11:00:00"), at("13:58:00"));
    d.admit(online("inf-1"), true, T14);
    d.raw(TopicCatalogue.PREEMPTION_REQUESTS, "c1", "not avro".getBytes(StandardCharsets.UTF_8),
        T14);
    String requestId = d.request(online("inf-1"), T14);

    var log = d.inputLog().stream().filter(e -> !e.getValue().getSourceTopic()
        .equals(TopicCatalogue.CLUSTER_CLOCK)).toList(); // ticks are logged too, between inputs

    // 2 nodes, submission, verdict, ledger change, STARTED, CHECKPOINTED, online submission and
    // verdict, the request: every accepted input once, the refused one not at all
    assertThat(log).extracting(e -> e.getValue().getSourceTopic()).containsExactly(
        TopicCatalogue.CLUSTER_INVENTORY, TopicCatalogue.CLUSTER_INVENTORY,
        TopicCatalogue.JOBS_SUBMITTED, TopicCatalogue.QUOTA_VERDICTS,
        TopicCatalogue.PLACEMENT_LEDGER, TopicCatalogue.JOBS_LIFECYCLE,
        TopicCatalogue.JOBS_LIFECYCLE, TopicCatalogue.JOBS_SUBMITTED,
        TopicCatalogue.QUOTA_VERDICTS, TopicCatalogue.PREEMPTION_REQUESTS);
    // keyed by the cluster (submissions and verdicts carry none: the default cluster)
    assertThat(log).extracting(Map.Entry::getKey).containsOnly(ViewDriver.CLUSTER);
    // the original bytes, untouched, and where they were read
    var request = log.get(log.size() - 1).getValue();
    assertThat(request.getSourceOffset()).isEqualTo(1); // after the refused record at offset 0
    assertThat(d.decisions()).singleElement()
        .satisfies(pd -> assertThat(pd.getRequestId()).isEqualTo(requestId));
    assertThat(d.deadLetters(TopicCatalogue.PREEMPTION_REQUESTS)).hasSize(1);
  }

  @Test
  void shouldDeadLetterBadInputWithTheReasonAndKeepAnswering() {
    running("train-a", "n01", at("11:00:00"), at("13:55:00"));
    running("train-b", "n02", at("13:50:00"), null);
    d.admit(online("inf-1"), true, T14);

    d.raw(TopicCatalogue.PREEMPTION_REQUESTS, "c1", "not avro".getBytes(StandardCharsets.UTF_8),
        T14);
    d.invalidPlacement("train-c", List.of(new GpuAssignment("n02", 0, 2.0)), T14);
    d.request(online("inf-1"), T14);

    List<DeadLetter> garbage = d.deadLetters(TopicCatalogue.PREEMPTION_REQUESTS);
    assertThat(garbage).hasSize(1);
    assertThat(garbage.get(0).getErrorClass()).isEqualTo("DESERIALIZATION");
    List<DeadLetter> invalid = d.deadLetters(TopicCatalogue.PLACEMENT_LEDGER);
    assertThat(invalid).hasSize(1);
    assertThat(invalid.get(0).getErrorClass()).isEqualTo("VALIDATION");
    assertThat(invalid.get(0).getError()).contains("share 2.0 outside (0, 1]");
    assertThat(victims(d.decisions().get(0))).containsExactly("train-a");
  }

  /**
   * ADR 0039: the reservation's 8 GPUs are held by two jobs (6 and 2), but placement asks for the
   * 5 the rise is expected to use: train-a alone frees them, and is worth it (cost 2.52 GPU-h ×
   * 1.5 ≤ 5 GPU-h of reservation value). With the shortfall uncapped (all 8 held GPUs) the same
   * request is refused.
   */
  @Test
  void shouldReclaimOnlyTheCountPlacementAsksForAtAReservationStart() {
    running("train-a", "n01", at("11:00:00"), at("13:58:00"));
    running("train-b", "n02", at("11:00:00"), at("13:40:00"));
    d.reserve("search/14:15", "search", 8, at("14:15:00"), at("15:00:00"), T14);

    d.reservationStart("search/14:15", "search", Map.of("train-a", 6.0, "train-b", 2.0), 5,
        at("14:15:00"));

    PreemptionDecision pd = d.decisions().get(0);
    assertThat(pd.getOutcome()).isEqualTo(PreemptionOutcome.PREEMPT);
    assertThat(victims(pd)).containsExactly("train-a");
    assertThat(line(pd, "reservation/search/14:15", "F2 reservation start").getDetail())
        .contains("8.00 reserved GPU(s) held by [train-a, train-b]: 5 to reclaim");
  }

  @Test
  void shouldChooseReservationStartVictimsAmongTheJobsPlacementNamesOnly() {
    running("train-a", "n01", at("11:00:00"), at("13:58:00"));
    running("train-b", "n02", at("11:00:00"), at("13:40:00"));
    running("train-c", "n03", at("11:00:00"), at("14:14:00")); // cheapest, not on the GPUs
    d.reserve("search/14:15", "search", 8, at("14:15:00"), at("15:00:00"), T14);

    String request = d.reservationStart("search/14:15", "search", Map.of("train-a", 8.0),
        at("14:15:00"));

    List<PreemptionDecision> out = d.decisions();
    assertThat(out).hasSize(1);
    PreemptionDecision pd = out.get(0);
    assertThat(pd.getTrigger()).isEqualTo("RESERVATION_START");
    assertThat(pd.getRequestId()).isEqualTo(request);
    assertThat(pd.getDecisionId()).isEqualTo(request + "/decision");
    assertThat(pd.getPreemptorJobId()).isEqualTo("reservation/search/14:15");
    assertThat(pd.getOutcome()).isEqualTo(PreemptionOutcome.PREEMPT);
    assertThat(pd.getDecidedAt()).isEqualTo(at("14:15:00").plusMillis(1));
    assertThat(victims(pd)).containsExactly("train-a");
    assertThat(pd.getTrace()).noneMatch(e -> e.getSubject().equals("train-b")
        || e.getSubject().equals("train-c")); // not on the reserved GPUs: never candidates
    assertThat(line(pd, "reservation/search/14:15", "F2 reservation start").getDetail())
        .contains("8.00 reserved GPU(s) held by [train-a]: 8 to reclaim");
  }

  @Test
  void shouldNotDecideOnItsOwnWhenAReservationStarts() {
    running("train-a", "n01", at("11:00:00"), null);
    d.reserve("search/14:15", "search", 8, at("14:15:00"), at("15:00:00"), T14);

    d.tick(at("14:15:00"));
    d.tick(at("14:16:00"));

    assertThat(d.decisions()).isEmpty(); // placement names the holders when it starts
  }

  @Test
  void shouldDecideQuotasShrinkAndIdleReclaimOfARunningJob() {
    running("train-a", "n01", at("11:00:00"), null);

    d.reclaim("train-a", ReclaimAction.SHRINK, T14);
    d.reclaim("train-a", ReclaimAction.RECLAIM, T14);
    d.reclaim("gone", ReclaimAction.RECLAIM, T14);

    List<PreemptionDecision> out = d.decisions();
    assertThat(out).hasSize(3);
    assertThat(out.get(0).getTrigger()).isEqualTo("SHRINK");
    assertThat(out.get(0).getOutcome()).isEqualTo(PreemptionOutcome.PREEMPT);
    assertThat(out.get(0).getVictims()).singleElement()
        .satisfies(v -> assertThat(v.getShrinkToGpus()).isEqualTo(4));
    assertThat(out.get(1).getTrigger()).isEqualTo("IDLE_RECLAIM");
    assertThat(out.get(1).getOutcome()).isEqualTo(PreemptionOutcome.PREEMPT);
    assertThat(victims(out.get(1))).containsExactly("train-a");
    assertThat(line(out.get(1), "idle-reclaim/train-a", "Q7 idle reclaim").getDetail())
        .contains("peak utilisation 2% over 2 h");
    assertThat(out.get(2).getOutcome()).isEqualTo(PreemptionOutcome.REFUSED);
    assertThat(line(out.get(2), "gone", "Q7 idle reclaim").getDetail())
        .isEqualTo("stale reclaim: gone is not running");
  }

  @Test
  void shouldCapTheCandidateLinesAndCountTheRestPerRule() {
    d.close();
    PreemptionPolicy one = PreemptionPolicy.defaults(ViewDriver.CLUSTER);
    d = new ViewDriver(registry.url(), new PreemptionPolicy(one.cluster(), one.rules(),
        one.placement(), one.assumedWait(), one.reservationValueHours(), one.offPeakStart(), 1,
        one.maxViewLag(), one.maxInputLead(), one.mode()));
    d.nodes(2, T11);
    running("train-a", "n01", at("13:50:00"), null);
    running("train-b", "n02", at("13:51:00"), null);
    d.admit(online("inf-1"), true, T14);

    d.request(online("inf-1"), T14);

    PreemptionDecision pd = d.decisions().get(0);
    assertThat(pd.getTrace()).filteredOn(e -> e.getRule().equals("P3 protection")
        && e.getSubject().startsWith("train-")).hasSize(1);
    assertThat(line(pd, io.tideline.core.preemption.kernel.PreemptionKernel.VIEW, "P3 protection").getDetail())
        .startsWith("1 more candidate(s) refused by this rule");
  }

  @Test
  void shouldCapTheEligibleCandidatesNotTakenAndCountTheRest() {
    d.close();
    PreemptionPolicy one = PreemptionPolicy.defaults(ViewDriver.CLUSTER);
    d = new ViewDriver(registry.url(), new PreemptionPolicy(one.cluster(), one.rules(),
        one.placement(), one.assumedWait(), one.reservationValueHours(), one.offPeakStart(), 1,
        one.maxViewLag(), one.maxInputLead(), one.mode()));
    d.nodes(3, T11);
    running("train-a", "n01", at("11:00:00"), at("13:58:00"));
    running("train-b", "n02", at("11:01:00"), at("13:58:00"));
    running("train-c", "n03", at("11:02:00"), at("13:58:00"));
    d.admit(online("inf-1"), true, T14);

    d.request(online("inf-1"), T14);

    PreemptionDecision pd = d.decisions().get(0);
    assertThat(pd.getOutcome()).isEqualTo(PreemptionOutcome.PREEMPT);
    assertThat(victims(pd)).hasSize(1);
    assertThat(pd.getTrace()).as("one eligible candidate not taken, in words")
        .filteredOn(e -> e.getOutcome().equals("SKIP") && e.getSubject().startsWith("train-"))
        .hasSize(1);
    assertThat(pd.getTrace()).filteredOn(e -> e.getOutcome().equals("SKIP")
        && e.getSubject().equals(io.tideline.core.preemption.kernel.PreemptionKernel.VIEW))
        .singleElement().satisfies(e -> assertThat(e.getDetail())
            .startsWith("1 more eligible candidate(s) not taken"));
  }

  @Test
  void shouldRecordARefusedReclaimWhenEveryHolderIsProtectedAtTheReservationStart() {
    running("train-a", "n01", at("14:05:00"), null); // protected until 14:20
    running("train-b", "n02", at("14:06:00"), null); // protected until 14:21
    d.reserve("search/14:15", "search", 8, at("14:15:00"), at("15:00:00"), T14);

    d.reservationStart("search/14:15", "search", Map.of("train-a", 4.0, "train-b", 4.0),
        at("14:15:00"));

    PreemptionDecision pd = d.decisions().get(0);
    assertThat(pd.getTrigger()).isEqualTo("RESERVATION_START");
    assertThat(pd.getOutcome()).isEqualTo(PreemptionOutcome.REFUSED);
    assertThat(pd.getVictims()).isEmpty();
    assertThat(line(pd, "train-a", "P3 protection").getDetail())
        .isEqualTo("protected until 2026-11-02T14:20:00Z");
    assertThat(line(pd, "train-b", "P3 protection").getDetail())
        .isEqualTo("protected until 2026-11-02T14:21:00Z");
  }
}
