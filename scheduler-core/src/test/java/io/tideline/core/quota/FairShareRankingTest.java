package io.tideline.core.quota;

import static io.tideline.core.quota.QuotaTestKit.ADS_TRAINING;
import static io.tideline.core.quota.QuotaTestKit.SEARCH_TRAINING;
import static io.tideline.core.quota.QuotaTestKit.T0;
import static io.tideline.core.quota.QuotaTestKit.ledger;
import static io.tideline.core.quota.QuotaTestKit.standard;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FairShareRankingTest {

  final FairShareRanking ranking = new FairShareRanking();
  final QuotaDefinition def = standard();

  List<String> order(QuotaDefinition d, QuotaLedger l, Instant now, Map<String, Instant> waiting) {
    return ranking.rank(d, l, waiting, now).order().stream().map(QueueStanding::queue).toList();
  }

  static QuotaLedger ran(QuotaLedger l, String queue, String job, int gpus, Instant from,
      Duration length) {
    return l.admit(new Allocation(job, queue, gpus, 0, from)).release(job, from.plus(length));
  }

  @Test
  void shouldServeAQueueBelowItsGuaranteeBeforeALighterQueueAtItsGuarantee() {
    QuotaLedger l = ran(ledger(), ADS_TRAINING, "old", 8, T0.minus(Duration.ofDays(1)),
        Duration.ofHours(20))
        .admit(new Allocation("a", ADS_TRAINING, 4, 0, T0))
        .admit(new Allocation("s", SEARCH_TRAINING, 8, 0, T0));

    var rank = ranking.rank(def, l, Map.of(ADS_TRAINING, T0, SEARCH_TRAINING, T0), T0);

    assertThat(rank.order()).extracting(QueueStanding::queue)
        .containsExactly(ADS_TRAINING, SEARCH_TRAINING);
    assertThat(rank.trace().get(0).outcome()).isEqualTo("rank 1");
    assertThat(rank.trace().get(0).detail()).startsWith("below guarantee (4/8), decayed usage");
  }

  @Test
  void shouldLetAnOldHeavyUserAheadOfARecentLighterOneOnceItsUsageDecayed() {
    // Search used 160 GPU-h two weeks ago; ads used 64 GPU-h yesterday.
    Instant searchRun = T0.minus(Duration.ofDays(14)).minus(Duration.ofHours(10));
    Instant adsRun = T0.minus(Duration.ofDays(1)).minus(Duration.ofHours(8));
    QuotaLedger l = ran(ran(ledger(), SEARCH_TRAINING, "big", 16, searchRun, Duration.ofHours(10)),
        ADS_TRAINING, "mid", 8, adsRun, Duration.ofHours(8));
    Map<String, Instant> waiting = Map.of(SEARCH_TRAINING, T0, ADS_TRAINING, T0);

    // Right after its run search is the heavy user and waits behind ads ...
    assertThat(order(def, l, searchRun.plus(Duration.ofHours(11)), waiting))
        .containsExactly(ADS_TRAINING, SEARCH_TRAINING);
    // ... two half-lives later its 160 GPU-h count as ≈ 40, less than ads' ≈ 59.
    var now = ranking.rank(def, l, waiting, T0).order();
    assertThat(now).extracting(QueueStanding::queue).containsExactly(SEARCH_TRAINING, ADS_TRAINING);
    assertThat(now.get(0).decayedGpuHours()).isBetween(38.0, 41.0);
    assertThat(now.get(1).decayedGpuHours()).isBetween(56.0, 61.0);
  }

  @Test
  void shouldDivideUsageByWeight() {
    QuotaLedger l = ran(ran(ledger(), SEARCH_TRAINING, "s", 8, T0.minusSeconds(7200),
        Duration.ofHours(1)), ADS_TRAINING, "a", 5, T0.minusSeconds(7200), Duration.ofHours(1));
    QuotaDefinition weighted = QuotaDefinition.of("w", def.nodes().stream()
        .map(n -> n.path().equals(SEARCH_TRAINING) ? n.withWeight(2) : n).toList());
    Map<String, Instant> waiting = Map.of(SEARCH_TRAINING, T0, ADS_TRAINING, T0);

    assertThat(order(def, l, T0, waiting)).containsExactly(ADS_TRAINING, SEARCH_TRAINING);
    assertThat(order(weighted, l, T0, waiting)).containsExactly(SEARCH_TRAINING, ADS_TRAINING);
  }

  @Test
  void shouldBreakTiesByOldestWaitingJobThenByPath() {
    QuotaLedger l = ledger();

    assertThat(order(def, l, T0, Map.of(SEARCH_TRAINING, T0, ADS_TRAINING, T0.plusSeconds(1))))
        .containsExactly(SEARCH_TRAINING, ADS_TRAINING);
    assertThat(order(def, l, T0, Map.of(SEARCH_TRAINING, T0, ADS_TRAINING, T0)))
        .containsExactly(ADS_TRAINING, SEARCH_TRAINING);
  }
}
