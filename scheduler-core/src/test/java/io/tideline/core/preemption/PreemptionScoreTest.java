package io.tideline.core.preemption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tideline.core.model.WorkloadClass;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PreemptionScoreTest {

  static final Instant NOW = Instant.parse("2026-11-02T14:00:00Z");
  final PreemptionScore score = new PreemptionScore(PreemptionConfig.DEFAULTS);

  @Test
  void shouldRankStaticPrioritiesOnlineOverBatchOverTrainingOverExploratory() {
    assertThat(score.staticPriority(WorkloadClass.ONLINE_INFERENCE, false)).isEqualTo(10.0);
    assertThat(score.staticPriority(WorkloadClass.BATCH_INFERENCE, false)).isEqualTo(5.0);
    assertThat(score.staticPriority(WorkloadClass.TRAINING, false)).isEqualTo(2.0);
    assertThat(score.staticPriority(WorkloadClass.EXPLORATORY_TRAINING, false)).isEqualTo(1.0);
  }

  @Test
  void shouldMultiplyACriticalJobsPriority() {
    assertThat(score.staticPriority(WorkloadClass.TRAINING, true)).isEqualTo(4.0);
  }

  @Test
  void shouldGrowTheDynamicWeightLinearlyWithRunTimeAndGpuHours() {
    assertThat(score.dynamicWeight(0, 0)).isEqualTo(1.0);
    assertThat(score.dynamicWeight(10, 0)).isCloseTo(1.5, within(1e-12));
    assertThat(score.dynamicWeight(20, 0)).isCloseTo(2.0, within(1e-12));
    assertThat(score.dynamicWeight(0, 640)).isCloseTo(1.32, within(1e-12));
  }

  @Test
  void shouldScoreTheJavadocExample() {
    RunningJob job = Jobs.training("t-64").gpus(64).nodes(8)
        .startedAt("2026-11-02T04:00:00Z").gpuHoursConsumed(640).build();

    assertThat(score.of(job, NOW)).isCloseTo(3.64, within(1e-12));
  }

  @Test
  void shouldMakeAnOlderJobMoreExpensiveToEvict() {
    RunningJob young = Jobs.training("young").startedAt("2026-11-02T13:00:00Z").build();
    RunningJob old = Jobs.training("old").startedAt("2026-11-01T14:00:00Z").build();

    assertThat(score.of(old, NOW)).isGreaterThan(score.of(young, NOW));
  }

  @Test
  void shouldScoreAResumedPreemptorWithItsConsumedGpuHours() {
    assertThat(score.of(Requests.online("fresh").build())).isEqualTo(10.0);
    assertThat(score.of(Requests.training("resumed").critical(true).gpuHoursConsumed(200).build()))
        .isCloseTo(4.0 * 1.1, within(1e-12));
  }
}
