package io.tideline.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.platform.topics.TopicCatalogue;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LockstepLatencyTest {

  @Test
  void shouldChargeATickSettleToTheHopsWhoseTopicsMovedInItsRound() {
    LockstepLatency latency = new LockstepLatency();
    latency.tickSettled(40, Set.of(TopicCatalogue.QUOTA_VERDICTS));
    latency.tickSettled(70, Set.of(TopicCatalogue.PLACEMENT_DECISIONS,
        TopicCatalogue.PREEMPTION_REQUESTS));
    latency.tickSettled(10, Set.of());

    assertThat(latency.rounds()).isEqualTo(3);
    assertThat(latency.quantile(TopicCatalogue.QUOTA_VERDICTS, 0.5)).isEqualTo(40);
    assertThat(latency.quantile(TopicCatalogue.PLACEMENT_DECISIONS, 0.5)).isEqualTo(70);
    assertThat(latency.quantile(TopicCatalogue.PREEMPTION_DECISIONS, 0.5)).isNaN();
  }

  @Test
  void shouldTakeTheNearestRankForP50AndP99() {
    LockstepLatency latency = new LockstepLatency();
    for (int ms = 1; ms <= 200; ms++) {
      latency.tickSettled(ms, Set.of(TopicCatalogue.EVICTIONS));
    }
    assertThat(latency.quantile(TopicCatalogue.EVICTIONS, 0.50)).isEqualTo(100);
    assertThat(latency.quantile(TopicCatalogue.EVICTIONS, 0.99)).isEqualTo(198);
  }

  @Test
  void shouldPrintEveryMeasuredHopAndTheRoundsThatNeededNoInputSettle() {
    LockstepLatency latency = new LockstepLatency();
    latency.inputSettled(30);
    latency.inputSkipped();
    latency.tickSettled(50, Set.of(TopicCatalogue.CAPACITY_RESERVATIONS));
    latency.tickSettled(50, Set.of());

    String summary = latency.summary();
    assertThat(summary).contains("lockstep: 2 rounds, 65 ms per round on average (1 rounds had no"
        + " facts to settle before their tick)");
    assertThat(summary).contains("forecast → reservation (forecaster-svc)");
    assertThat(summary).doesNotContain("submission → verdict");
  }
}
