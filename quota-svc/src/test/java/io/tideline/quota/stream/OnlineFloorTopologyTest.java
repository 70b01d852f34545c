package io.tideline.quota.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.DeadLetter;
import io.tideline.events.QuotaChange;
import io.tideline.events.QuotaChangeKind;
import io.tideline.events.QuotaState;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.Verdict;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.RegistryFixture;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Q5 applied, through the topology: the search inference queue serves {@code search-api}; its
 * declared floor (16) holds until the forecaster publishes the service's historical peak, then the
 * floor in force is ceil(70% × peak) and every verdict after it uses that floor. Search may not
 * borrow (cap 0), so a verdict shows exactly which floor was in force. Records are fed, then a
 * clock tick after them: the writer decides on ticks.
 */
class OnlineFloorTopologyTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");
  static final String INFERENCE = "acme/search/ranking/inference";

  static final String DEFINITION = """
      version: "q5-1"
      fleetGpus: 64
      nodes:
        - {path: acme, kind: ORGANISATION, guaranteedGpus: 24}
        - {path: acme/search, kind: BUSINESS_LINE, guaranteedGpus: 24, borrowCapGpus: 0,
           preemptionGrants: [ONLINE_INFERENCE, CRITICAL_JOBS]}
        - {path: acme/search/ranking, kind: TEAM, guaranteedGpus: 24}
        - {path: acme/search/ranking/inference, kind: QUEUE, lane: INFERENCE, guaranteedGpus: 16,
           lendLimitGpus: 0, services: [search-api]}
        - {path: acme/search/ranking/training, kind: QUEUE, lane: TRAINING, guaranteedGpus: 8,
           lendLimitGpus: 0}
      """;

  @RegisterExtension static final RegistryFixture registry = new RegistryFixture();
  QuotaScenario q;

  @BeforeEach
  void driver() {
    q = new QuotaScenario(registry.url(), DEFINITION);
  }

  @AfterEach
  void close() {
    q.close();
  }

  static JobSubmissions online(String id, int gpus, Instant at) {
    return JobSubmissions.onlineInference(id, "search-api", 1.0).gpus(gpus).at(at);
  }

  private List<QuotaVerdict> verdicts(String jobId) {
    return q.<QuotaVerdict>read(TopicCatalogue.QUOTA_VERDICTS).stream()
        .filter(v -> v.getJobId().equals(jobId)).toList();
  }

  @Test
  void shouldApplyTheNewGuaranteeAsTheQueueFloorAndAdmitAgainstIt() {
    // 1. Declared floor 16 and no borrowing (cap 0): a 24-GPU instance set waits.
    q.submit(online("big", 24, T0).build());
    q.tick(T0.plusSeconds(1));
    assertThat(verdicts("big")).singleElement().satisfies(v -> {
      assertThat(v.getVerdict()).isEqualTo(Verdict.QUEUED);
      assertThat(v.getReason()).startsWith("borrowing cap of ");
    });
    q.read(QuotaTopics.CHANGES);
    q.read(TopicCatalogue.QUOTA_STATE);

    // 2. The forecaster publishes the historical peak 40 → guarantee ceil(28) → floor 28.
    q.peak("search-api", 40, T0.plusSeconds(900));
    q.tick(T0.plusSeconds(901));

    List<QuotaChange> changes = q.read(QuotaTopics.CHANGES);
    assertThat(changes).singleElement().satisfies(c -> {
      assertThat(c.getKind()).isEqualTo(QuotaChangeKind.GUARANTEE_CHANGED);
      assertThat(c.getSubject()).isEqualTo("search-api");
      assertThat(c.getOldGuaranteeGpus()).isEqualTo(0.0);
      assertThat(c.getNewGuaranteeGpus()).isEqualTo(28.0);
      assertThat(c.getNewPeakGpus()).isEqualTo(40.0);
      assertThat(c.getQueue()).isEqualTo(INFERENCE);
      assertThat(c.getOldFloorGpus()).isEqualTo(16.0);
      assertThat(c.getNewFloorGpus()).isEqualTo(28.0);
      assertThat(c.getReason())
          .contains("new service: peak 40 → guarantee 28 (70% of the historical peak)")
          .contains("floor of " + INFERENCE + " 16 → 28 applied (locked)")
          .contains("acme/search/ranking 24 → 36");
      assertThat(c.getAt()).isEqualTo(T0.plusSeconds(901));
    });
    QuotaState state = q.<QuotaState>read(TopicCatalogue.QUOTA_STATE).stream()
        .filter(s -> s.getQueue().equals(INFERENCE)).reduce((a, b) -> b).orElseThrow();
    assertThat(state.getGuaranteedGpus()).isEqualTo(28.0);

    // 3. The waiting job is re-admitted on the new floor, and later verdicts use 28.
    assertThat(verdicts("big")).singleElement().satisfies(v -> {
      assertThat(v.getVerdict()).isEqualTo(Verdict.GUARANTEED);
      assertThat(v.getGpus()).isEqualTo(24.0);
      assertThat(v.getDecidedAt()).isEqualTo(T0.plusSeconds(901));
    });
    q.submit(online("fits", 4, T0.plusSeconds(960)).build());
    q.submit(online("over", 1, T0.plusSeconds(961)).build());
    q.tick(T0.plusSeconds(962));
    List<QuotaVerdict> after = q.read(TopicCatalogue.QUOTA_VERDICTS);
    assertThat(after).extracting(QuotaVerdict::getJobId, QuotaVerdict::getVerdict)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("fits", Verdict.GUARANTEED),
            org.assertj.core.groups.Tuple.tuple("over", Verdict.QUEUED));
  }

  @Test
  void shouldShrinkTheFloorWhenThePeakFallsAndAuditBothFloors() {
    q.peak("search-api", 40, T0);
    q.tick(T0.plusSeconds(1));
    q.peak("search-api", 10, T0.plusSeconds(900));
    q.tick(T0.plusSeconds(901));

    List<QuotaChange> changes = q.<QuotaChange>read(QuotaTopics.CHANGES).stream()
        .filter(c -> c.getKind() == QuotaChangeKind.GUARANTEE_CHANGED).toList();
    assertThat(changes).extracting(QuotaChange::getOldFloorGpus, QuotaChange::getNewFloorGpus)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(16.0, 28.0),
            org.assertj.core.groups.Tuple.tuple(28.0, 7.0));
    q.submit(online("eight", 8, T0.plusSeconds(960)).build());
    q.tick(T0.plusSeconds(961));
    assertThat(verdicts("eight")).singleElement()
        .satisfies(v -> assertThat(v.getVerdict()).isEqualTo(Verdict.QUEUED));
  }

  @Test
  void shouldAuditAGuaranteeNoQueueServesWithoutTouchingTheFloors() {
    q.tick(T0); // the bootstrap definition is applied on the first tick
    q.read(QuotaTopics.CHANGES);
    q.read(TopicCatalogue.QUOTA_STATE);
    q.peak("chat", 10, T0.plusSeconds(1));
    q.tick(T0.plusSeconds(2));

    assertThat(q.<QuotaChange>read(QuotaTopics.CHANGES)).singleElement().satisfies(c -> {
      assertThat(c.getQueue()).isNull();
      assertThat(c.getNewFloorGpus()).isNull();
      assertThat(c.getReason()).contains("no queue serves chat: floors unchanged");
    });
    assertThat(q.<QuotaState>read(TopicCatalogue.QUOTA_STATE)).isEmpty();
  }

  @Test
  void shouldApplyKnownPeaksToANewDefinitionVersion() {
    q.peak("search-api", 40, T0);
    q.tick(T0.plusSeconds(1));
    q.read(QuotaTopics.CHANGES);
    q.definition("q5-2", DEFINITION.replace("q5-1", "q5-2"), T0.plusSeconds(60));
    q.tick(T0.plusSeconds(61));

    assertThat(q.<QuotaChange>read(QuotaTopics.CHANGES)).singleElement().satisfies(c ->
        assertThat(c.getReason()).contains("online floors from known peaks: " + INFERENCE
            + " locked 28"));
    q.submit(online("big", 24, T0.plusSeconds(120)).build());
    q.tick(T0.plusSeconds(121));
    assertThat(verdicts("big")).singleElement()
        .satisfies(v -> assertThat(v.getVerdict()).isEqualTo(Verdict.GUARANTEED));
  }

  @Test
  void shouldDeadLetterADefinitionThatMapsAServiceToTwoQueues() {
    String twice = DEFINITION.replace("q5-1", "q5-2").replace(
        "guaranteedGpus: 8,\n     lendLimitGpus: 0}",
        "guaranteedGpus: 8,\n     lendLimitGpus: 0, services: [search-api]}");
    assertThat(twice).isNotEqualTo(DEFINITION.replace("q5-1", "q5-2"));
    q.definition("q5-2", twice, T0);

    List<DeadLetter> letters = q.read(QuotaTopics.CONFIG + ".dlq");
    assertThat(letters).singleElement().satisfies(l -> assertThat(l.getError())
        .contains("acme/search/ranking/training: only an INFERENCE queue serves online services"));
  }
}
