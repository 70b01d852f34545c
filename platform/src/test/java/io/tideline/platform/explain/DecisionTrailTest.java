package io.tideline.platform.explain;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.RuleTraceEntry;
import io.tideline.events.Victim;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.JobSubmissions;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one decision trail behind {@code tideline explain} and the console's job page. */
class DecisionTrailTest {

  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");

  private static DecisionTrail.Entry at(String topic, String key, Instant t, Object value) {
    return new DecisionTrail.Entry(topic, key, t.toEpochMilli(), value, null);
  }

  private static PreemptionDecision decision(String preemptor, String victim, Instant t) {
    return PreemptionDecision.newBuilder().setDecisionId("d1").setRequestId("r1").setCluster("c1")
        .setPreemptorJobId(preemptor).setDecidedAt(t).setOutcome(PreemptionOutcome.PREEMPT)
        .setPreemptorScore(4).setVictims(List.of(Victim.newBuilder().setJobId(victim)
            .setTenant("research").setUser("bob").setScore(2).setGpus(8).setCostGpuHours(1.5)
            .setQueueBoost(0.5).build()))
        .setTotalCostGpuHours(1.5).setGainGpuHours(6).setLedgerVersion(1).setPolicyVersion("v1")
        .setTrace(List.of(RuleTraceEntry.newBuilder().setSubject("d1").setRule("cost-vs-gain")
            .setOutcome("TAKEN").setDetail("gain 6.00 GPU-h vs cost 1.50 GPU-h").build()))
        .setTrigger("UNPLACEABLE").build();
  }

  @Test
  void shouldTellAVictimsTrailInTimeOrderWithTheDecisionsRuleTrace() {
    var submitted = at(TopicCatalogue.JOBS_SUBMITTED, "train-1", T0,
        JobSubmissions.training("train-1").at(T0).build());
    var other = at(TopicCatalogue.JOBS_SUBMITTED, "train-2", T0,
        JobSubmissions.training("train-2").at(T0).build());
    var decided = at(TopicCatalogue.PREEMPTION_DECISIONS, "c1", T0.plusSeconds(60),
        decision("web-1", "train-1", T0.plusSeconds(60)));
    var refusedRecord = new DecisionTrail.Entry(TopicCatalogue.JOBS_SUBMITTED + ".dlq", "train-1",
        T0.plusSeconds(120).toEpochMilli(), null, "not Avro");

    List<DecisionTrail.Line> trail = DecisionTrail.of("train-1",
        List.of(decided, refusedRecord, other, submitted));

    assertThat(trail).extracting(l -> l.entry().topic()).containsExactly(
        TopicCatalogue.JOBS_SUBMITTED, TopicCatalogue.PREEMPTION_DECISIONS,
        TopicCatalogue.JOBS_SUBMITTED + ".dlq");
    assertThat(trail.get(1).summary()).contains("outcome=PREEMPT", "preemptorJobId=web-1",
        "victims=[train-1]");
    assertThat(trail.get(1).trace()).containsExactly(new DecisionTrail.Step("d1", "cost-vs-gain",
        "TAKEN", "gain 6.00 GPU-h vs cost 1.50 GPU-h"));
    assertThat(trail.get(2).summary()).isEqualTo("<undecodable: not Avro>");
    assertThat(DecisionTrail.jobsNamed(decided)).containsExactly("web-1", "train-1");
    assertThat(DecisionTrail.of("nobody", List.of(decided, submitted))).isEmpty();
  }
}
