package io.tideline.console.view;

import static io.tideline.console.view.Events.bill;
import static io.tideline.console.view.Events.eviction;
import static io.tideline.console.view.Events.forecast;
import static io.tideline.console.view.Events.fragmentation;
import static io.tideline.console.view.Events.node;
import static io.tideline.console.view.Events.notice;
import static io.tideline.console.view.Events.placed;
import static io.tideline.console.view.Events.preempt;
import static io.tideline.console.view.Events.queued;
import static io.tideline.console.view.Events.quota;
import static io.tideline.console.view.Events.reserve;
import static io.tideline.console.view.Events.verdict;
import static io.tideline.console.view.Events.victim;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.JobLifecycle;
import io.tideline.events.Lane;
import io.tideline.events.LifecycleType;
import io.tideline.events.NodeInventory;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.Verdict;
import io.tideline.platform.explain.DecisionTrail;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.ClusterNodes;
import io.tideline.testkit.JobSubmissions;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The five views and the job trail as folds of events, with explicit event times. */
class ConsoleViewsTest {

  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");

  private final Map<String, Long> waits = new HashMap<>();
  private final ConsoleState state = new ConsoleState(Duration.ofMinutes(15), Duration.ofHours(24),
      waits::put);
  private final List<DecisionTrail.Entry> everything = new ArrayList<>();

  private void feed(String topic, String key, Instant at, Object value) {
    state.accept(topic, key, at.toEpochMilli(), value, null);
    everything.add(new DecisionTrail.Entry(topic, key, at.toEpochMilli(), value, null));
  }

  private void fleet(int nodes) {
    for (NodeInventory n : ClusterNodes.joined("c1", nodes, T0)) {
      feed(TopicCatalogue.CLUSTER_INVENTORY, n.getNodeId(), T0, n);
    }
  }

  @Test
  void shouldShowAnAppliedPreemptionWithItsVictimTraceEvictionAndNotice() {
    Instant at = T0.plusSeconds(600);
    feed(TopicCatalogue.PREEMPTION_DECISIONS, "c1", at, preempt("d1", "web-1", at,
        PreemptionOutcome.PREEMPT, 4.0, List.of(victim("train-1", 2.0, 8, 1.5))));
    feed(TopicCatalogue.PREEMPTION_DECISIONS, "c1", at.plusSeconds(5), preempt("d2", "web-2",
        at.plusSeconds(5), PreemptionOutcome.REFUSED, 1.0, List.of()));
    feed(TopicCatalogue.EVICTIONS, "train-1", at.plusSeconds(1),
        eviction("e1", "train-1", "d1", at.plusSeconds(1)));
    feed(TopicCatalogue.NOTICES, "bob", at.plusSeconds(2), notice("n1", "train-1", "d1",
        at.plusSeconds(2)));
    feed(TopicCatalogue.NOTICES, "bob", at.plusSeconds(3), notice("n1", "train-1", "d1",
        at.plusSeconds(2)));

    PreemptionView view = state.preemptions();
    assertThat(view.applied()).isEqualTo(1);
    assertThat(view.refused()).isEqualTo(1);
    PreemptionView.Row d1 = view.page(1, 10, true).items().get(0);
    assertThat(d1.decisionId()).isEqualTo("d1");
    assertThat(d1.victims()).singleElement().satisfies(v -> {
      assertThat(v.scoreRatio()).isEqualTo(2.0);
      assertThat(v.costGpuHours()).isEqualTo(1.5);
      assertThat(v.queueBoost()).isEqualTo(0.5);
    });
    assertThat(d1.trace()).extracting(DecisionTrail.Step::rule)
        .containsExactly("score-threshold", "cost-vs-gain");
    assertThat(d1.evictions()).extracting(PreemptionView.EvictionRow::evictionId)
        .containsExactly("e1");
    assertThat(d1.notices()).as("the notice read twice is one notice").singleElement()
        .satisfies(n -> assertThat(n.compensation()).isEqualTo("queue boost 0.5"));
    assertThat(view.page(1, 10, false).items()).extracting(PreemptionView.Row::decisionId)
        .as("newest first").containsExactly("d2", "d1");
    assertThat(view.ofJob("train-1")).extracting(PreemptionView.Row::decisionId)
        .containsExactly("d1");
  }

  @Test
  void shouldSayQuotaHoldsAJobItQueuedAndPlacementsBasisOtherwise() {
    feed(TopicCatalogue.JOBS_SUBMITTED, "a", T0, JobSubmissions.training("a").at(T0).build());
    feed(TopicCatalogue.JOBS_SUBMITTED, "b", T0, JobSubmissions.training("b").at(T0).build());
    feed(TopicCatalogue.QUOTA_VERDICTS, "a", T0, verdict("a", Verdict.QUEUED,
        "search/ranking is at its borrow cap", T0));
    feed(TopicCatalogue.QUOTA_VERDICTS, "b", T0, verdict("b", Verdict.SHARED, "shared pool", T0));
    feed(TopicCatalogue.PLACEMENT_QUEUE, "a", T0, queued("a", Lane.TRAINING, 2, T0, "quota"));
    feed(TopicCatalogue.PLACEMENT_QUEUE, "b", T0, queued("b", Lane.TRAINING, 1, T0,
        "fragmentation: no node with 8 free GPUs in one access switch"));

    Page<QueueView.Row> lane = state.queues().lane(Lane.TRAINING, 1, 10);
    assertThat(lane.items()).extracting(QueueView.Row::jobId).containsExactly("b", "a");
    assertThat(lane.items().get(0).reason()).startsWith("fragmentation");
    assertThat(lane.items().get(1).reason()).isEqualTo("quota: search/ranking is at its borrow cap"
        + " (unblocks when: search/ranking frees 8 GPUs)");
    assertThat(lane.items().get(1).gpus()).isEqualTo(8);

    feed(TopicCatalogue.PLACEMENT_QUEUE, "b", T0.plusSeconds(60), null);
    assertThat(state.queues().lane(Lane.TRAINING, 1, 10).items()).extracting(QueueView.Row::jobId)
        .as("a tombstone: b left the queue").containsExactly("a");
    assertThat(state.queues().lengths()).containsEntry(Lane.TRAINING, 1)
        .containsEntry(Lane.INFERENCE, 0);
  }

  @Test
  void shouldCountOnlineReservedTrainingAndIdleGpusAndTheScaleUpWait() {
    fleet(2);
    Instant t1 = T0.plusSeconds(300);
    feed(TopicCatalogue.JOBS_SUBMITTED, "train-1", T0, JobSubmissions.training("train-1").at(T0)
        .build());
    feed(TopicCatalogue.PLACEMENT_DECISIONS, "c1", t1, placed("train-1", t1, "n01", 8));
    feed(TopicCatalogue.JOBS_SUBMITTED, "web-1", t1, JobSubmissions.onlineInference("web-1",
        "web", 1.0).at(t1).build());
    feed(TopicCatalogue.CAPACITY_RESERVATIONS, "web", t1, reserve("web", 4, t1));
    Instant t2 = T0.plusSeconds(1200);
    feed(TopicCatalogue.PLACEMENT_DECISIONS, "c1", t2, placed("web-1", t2, "n02", 1));

    TideView.Point now = state.tide().now();
    assertThat(now.at()).isEqualTo(Instant.parse("2026-11-30T06:15:00Z"));
    assertThat(now.online()).isEqualTo(1);
    assertThat(now.trainingBatch()).isEqualTo(8);
    assertThat(now.reserved()).isEqualTo(4);
    assertThat(now.idle()).isEqualTo(7);
    assertThat(state.tide().series()).extracting(TideView.Point::trainingBatch)
        .as("06:00 bucket, then 06:15").containsExactly(8.0, 8.0);
    assertThat(waits).as("web-1 waited from 06:05 to 06:20").containsEntry("web-1", 900_000L)
        .doesNotContainKey("train-1");

    Instant t3 = T0.plusSeconds(1500);
    feed(TopicCatalogue.JOBS_LIFECYCLE, "train-1", t3, JobLifecycle.newBuilder().setJobId("train-1")
        .setCluster("c1").setType(LifecycleType.COMPLETED).setOccurredAt(t3).build());
    assertThat(state.tide().now().trainingBatch()).isZero();
    assertThat(state.tide().now().idle()).isEqualTo(15);
  }

  @Test
  void shouldSetEachServicesForecastAgainstWhatItHeld() {
    fleet(1);
    feed(TopicCatalogue.FORECAST_SLOTS, "web", T0, forecast("web", T0, 1, 2));
    feed(TopicCatalogue.FORECAST_SLOTS, "web", T0, forecast("web", T0.plusSeconds(3600), 3, 5));
    feed(TopicCatalogue.JOBS_SUBMITTED, "web-1", T0, JobSubmissions.onlineInference("web-1",
        "web", 1.0).at(T0).build());
    feed(TopicCatalogue.PLACEMENT_DECISIONS, "c1", T0.plusSeconds(60),
        placed("web-1", T0.plusSeconds(60), "n01", 1));

    assertThat(state.tide().forecastVsActual(8, 4)).satisfiesExactly(
        past -> {
          assertThat(past.slotStart()).isEqualTo(T0);
          assertThat(past.p90()).isEqualTo(2);
          assertThat(past.actual()).isEqualTo(1.0);
          assertThat(past.ahead()).isFalse();
        },
        next -> {
          assertThat(next.slotStart()).isEqualTo(T0.plusSeconds(3600));
          assertThat(next.actual()).isNull();
          assertThat(next.ahead()).isTrue();
        });
  }

  @Test
  void shouldGroupTheNodesThatStrandGpusBySwitchDomain() {
    fleet(4);
    feed(TopicCatalogue.PLACEMENT_FRAGMENTATION, "c1", T0, fragmentation(T0, 2, 10, List.of(
        node("n01", 3, 2))));
    Instant later = T0.plusSeconds(1800);
    feed(TopicCatalogue.PLACEMENT_FRAGMENTATION, "c1", later, fragmentation(later, 6, 12, List.of(
        node("n01", 3, 1), node("n02", 3, 2), node("n03", 5, 3), node("n04", 1, 0))));

    assertThat(state.fragmentation().series()).extracting(FragmentationView.Point::strandedGpus)
        .containsExactly(2.0, 6.0);
    Page<FragmentationView.Domain> domains = state.fragmentation().domains(1, 10);
    assertThat(domains.items()).extracting(FragmentationView.Domain::accessSwitch)
        .as("asw1 holds n01+n02 (3 stranded), asw2 n03 (3) and n04 strands none")
        .containsExactly("asw1", "asw2");
    assertThat(domains.items().get(0).nodes()).extracting(FragmentationView.NodeRow::nodeId)
        .containsExactly("n02", "n01");
    assertThat(domains.items().get(1).nodes()).extracting(FragmentationView.NodeRow::nodeId)
        .containsExactly("n03");
  }

  @Test
  void shouldShowTheQuotaTreeAndBillEachTenantPerDay() {
    feed(TopicCatalogue.QUOTA_STATE, "search", T0, quota("search", "search", 32, 20, 0, T0));
    feed(TopicCatalogue.QUOTA_STATE, "search/ranking", T0,
        quota("search/ranking", "search", 16, 16, 6, T0));
    Instant day2 = Instant.parse("2026-12-01T01:00:00Z");
    feed(TopicCatalogue.BILLING_USAGE, "search", T0, bill("search", "a", T0, 7200, 2.0));
    feed(TopicCatalogue.BILLING_USAGE, "search", T0, bill("search", "b", T0.plusSeconds(60), 3600,
        1.0));
    feed(TopicCatalogue.BILLING_USAGE, "search", day2, bill("search", "a", day2, 3600, 1.5));

    assertThat(state.quota().tree()).satisfiesExactly(
        root -> {
          assertThat(root.depth()).isZero();
          assertThat(root.used()).isEqualTo(20);
          assertThat(root.lent()).as("12 of its 32 unused").isEqualTo(12);
        },
        child -> {
          assertThat(child.name()).isEqualTo("ranking");
          assertThat(child.depth()).isEqualTo(1);
          assertThat(child.used()).isEqualTo(22);
          assertThat(child.borrowed()).isEqualTo(6);
          assertThat(child.lent()).isZero();
        });
    assertThat(state.quota().bills(1, 10).items()).satisfiesExactly(
        d1 -> {
          assertThat(d1.day()).isEqualTo(LocalDate.parse("2026-11-30"));
          assertThat(d1.gpuHours()).isEqualTo(3.0);
          assertThat(d1.amount()).isEqualTo(3.0);
        },
        d2 -> assertThat(d2.day()).isEqualTo(LocalDate.parse("2026-12-01")));
    feed(TopicCatalogue.QUOTA_STATE, "search/ranking", T0.plusSeconds(1), null);
    assertThat(state.quota().tree()).extracting(QuotaView.Node::queue).containsExactly("search");
  }

  @Test
  void shouldShowAJobTheSameTrailAsTheCli() {
    feed(TopicCatalogue.JOBS_SUBMITTED, "web-1", T0, JobSubmissions.onlineInference("web-1",
        "web", 1.0).at(T0).build());
    feed(TopicCatalogue.CAPACITY_RESERVATIONS, "web", T0.plusSeconds(1), reserve("web", 2,
        T0.plusSeconds(1)));
    feed(TopicCatalogue.CAPACITY_RESERVATIONS, "shop", T0.plusSeconds(1), reserve("shop", 2,
        T0.plusSeconds(1)));
    Instant at = T0.plusSeconds(10);
    feed(TopicCatalogue.PREEMPTION_DECISIONS, "c1", at, preempt("d1", "web-1", at,
        PreemptionOutcome.PREEMPT, 4.0, List.of(victim("train-1", 2.0, 8, 1.5))));
    feed(TopicCatalogue.EVICTIONS, "train-1", at, eviction("e1", "train-1", "d1", at));
    feed(TopicCatalogue.JOBS_SUBMITTED + ".dlq", "train-9", at, null);

    List<DecisionTrail.Line> web = state.trails().trail("web-1");
    assertThat(web).isEqualTo(DecisionTrail.of("web-1", everything));
    assertThat(web).extracting(l -> l.entry().topic()).containsExactly(
        TopicCatalogue.JOBS_SUBMITTED, TopicCatalogue.CAPACITY_RESERVATIONS,
        TopicCatalogue.PREEMPTION_DECISIONS);
    assertThat(web.get(2).trace()).extracting(DecisionTrail.Step::rule)
        .containsExactly("score-threshold", "cost-vs-gain");
    assertThat(state.trails().trail("train-1")).isEqualTo(DecisionTrail.of("train-1", everything))
        .hasSize(2);
    assertThat(state.trails().trail("nobody")).isEmpty();
  }

  @Test
  void shouldCountARecordItCannotDecodeAndFoldTheNextOne() {
    state.accept(TopicCatalogue.PREEMPTION_DECISIONS, "c1", T0.toEpochMilli(), null,
        "not Avro: magic byte 0x7b");
    feed(TopicCatalogue.PREEMPTION_DECISIONS, "c1", T0, preempt("d1", "web-1", T0,
        PreemptionOutcome.PREEMPT, 4.0, List.of()));
    assertThat(state.undecodable()).isEqualTo(1);
    assertThat(state.preemptions().applied()).isEqualTo(1);
    assertThat(state.version()).isEqualTo(2);
  }

  @Test
  void shouldCutEveryListIntoPagesServerSide() {
    List<Integer> rows = new ArrayList<>();
    for (int i = 0; i < 125; i++) {
      rows.add(i);
    }
    Page<Integer> last = Page.of(rows, 3, 50);
    assertThat(last.items()).hasSize(25).startsWith(100);
    assertThat(last.pages()).isEqualTo(3);
    assertThat(last.hasNext()).isFalse();
    assertThat(Page.of(rows, 99, 50).page()).as("clamped").isEqualTo(3);
    assertThat(Page.of(List.of(), 1, 50).pages()).isEqualTo(1);
  }
}
