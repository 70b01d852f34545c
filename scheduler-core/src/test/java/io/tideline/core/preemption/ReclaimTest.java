package io.tideline.core.preemption;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.preemption.PreemptionDecision.Outcome;
import io.tideline.core.preemption.TraceEntry.Result;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reclaims without a job preemptor: an idle job (Q7) and a starting reservation (F2). */
class ReclaimTest {

  static final Instant NOW = Instant.parse("2026-11-02T14:30:00Z");
  static final Instant NEXT_TROUGH = Instant.parse("2026-11-03T00:00:00Z");

  final PreemptionPlanner planner = new PreemptionPlanner(PreemptionConfig.DEFAULTS);

  @Test
  void shouldReclaimAnIdlePreemptibleJobWithCompensation() {
    RunningJob idle = Jobs.exploratory("idle-1").startedAt("2026-11-02T10:00:00Z").build();

    PreemptionDecision d = planner.reclaimIdle("idle-reclaim/idle-1", idle, "peak 3% for 2 h",
        NOW, NEXT_TROUGH);

    assertThat(d.outcome()).isEqualTo(Outcome.PREEMPT);
    assertThat(d.victims()).extracting(Victim::jobId).containsExactly("idle-1");
    assertThat(d.victims().get(0).compensation().offPeakRetryAt()).isEqualTo(NEXT_TROUGH);
    assertThat(d.trace()).anyMatch(e -> e.rule() == PreemptionRule.Q7_IDLE_RECLAIM
        && e.detail().contains("peak 3% for 2 h"));
  }

  @Test
  void shouldNotReclaimAnIdleJobAt14Minutes59AfterItsStartButAt15() {
    RunningJob at1459 = Jobs.exploratory("idle-1").startedAt("2026-11-02T14:15:01Z").build();
    RunningJob at1500 = Jobs.exploratory("idle-1").startedAt("2026-11-02T14:15:00Z").build();

    PreemptionDecision protectedOne = planner.reclaimIdle("r", at1459, "idle", NOW, null);
    PreemptionDecision free = planner.reclaimIdle("r", at1500, "idle", NOW, null);

    assertThat(protectedOne.outcome()).isEqualTo(Outcome.REFUSED);
    assertThat(protectedOne.trace()).anyMatch(e -> e.rule() == PreemptionRule.P3_PROTECTION
        && e.result() == Result.REFUSE && e.detail().equals("protected until 2026-11-02T14:30:01Z"));
    assertThat(free.outcome()).isEqualTo(Outcome.PREEMPT);
  }

  @Test
  void shouldNeverReclaimANonPreemptibleJobNorOneInCooldown() {
    RunningJob declared = Jobs.training("t-1").startedAt("2026-11-02T10:00:00Z")
        .preemptible(false).build();
    RunningJob cooling = Jobs.training("t-2").startedAt("2026-11-02T10:00:00Z")
        .lastPreemptedAt("2026-11-02T14:00:01Z").build();

    assertThat(planner.reclaimIdle("r", declared, "idle", NOW, null).trace())
        .anyMatch(e -> e.rule() == PreemptionRule.W4_PREEMPTIBLE);
    PreemptionDecision d = planner.reclaimIdle("r", cooling, "idle", NOW, null);
    assertThat(d.outcome()).isEqualTo(Outcome.REFUSED);
    assertThat(d.trace()).anyMatch(e -> e.rule() == PreemptionRule.P3_COOLDOWN
        && e.detail().equals("cooldown until 2026-11-02T14:30:01Z"));
  }

  @Test
  void shouldFreeAReservationsShortfallFromTheCheapestPreemptibleJobs() {
    // 16 GPUs reserved, 4 idle: 12 must come from preemptible work
    RunningJob cheap = Jobs.training("cheap").gpus(8).startedAt("2026-11-02T12:00:00Z")
        .lastCheckpointAt("2026-11-02T14:29:00Z").build();
    RunningJob cheap2 = Jobs.training("cheap2").gpus(8).startedAt("2026-11-02T12:00:00Z")
        .lastCheckpointAt("2026-11-02T14:28:00Z").build();
    RunningJob dear = Jobs.training("dear").gpus(8).startedAt("2026-11-02T12:00:00Z")
        .lastCheckpointAt("2026-11-02T14:00:00Z").build();
    PreemptionRequest reservation = new PreemptionRequest("reservation/search-1430", "search",
        "forecaster", io.tideline.core.model.WorkloadClass.ONLINE_INFERENCE, false, true, 16, 0,
        0, 16 * 1.0, 0);
    GpuCountProbe probe = new GpuCountProbe(4, Map.of("cheap", 8.0, "cheap2", 8.0, "dear", 8.0));

    PreemptionDecision d = planner.decide(reservation, List.of(dear, cheap, cheap2), probe, NOW,
        NEXT_TROUGH);

    assertThat(d.outcome()).isEqualTo(Outcome.PREEMPT);
    assertThat(d.victims()).extracting(Victim::jobId).containsExactlyInAnyOrder("cheap", "cheap2");
  }

  @Test
  void shouldCountIdleAndFreedGpusInTheCountProbe() {
    GpuCountProbe probe = new GpuCountProbe(2, Map.of("a", 4.0, "b", 0.25));
    PreemptionRequest six = new PreemptionRequest("r", "t", "u",
        io.tideline.core.model.WorkloadClass.ONLINE_INFERENCE, false, true, 6, 0, 0, 0, 0);

    assertThat(probe.feasibleWithout(six, java.util.Set.of("b"))).isFalse();
    assertThat(probe.feasibleWithout(six, java.util.Set.of("a"))).isTrue();
    IncrementalProbe.Session s = probe.open(six);
    s.evict("a");
    assertThat(s.feasible()).isTrue();
    s.restore("a");
    s.evict("b");
    assertThat(s.feasible()).isFalse();
  }
}
