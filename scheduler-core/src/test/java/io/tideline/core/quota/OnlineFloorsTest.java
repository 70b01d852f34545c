package io.tideline.core.quota;

import static io.tideline.core.quota.QuotaTestKit.ADS_TRAINING;
import static io.tideline.core.quota.QuotaTestKit.SEARCH_INFERENCE;
import static io.tideline.core.quota.QuotaTestKit.SEARCH_TRAINING;
import static io.tideline.core.quota.QuotaTestKit.T0;
import static io.tideline.core.quota.QuotaTestKit.job;
import static io.tideline.core.quota.QuotaTestKit.ledger;
import static io.tideline.core.quota.QuotaTestKit.standard;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.model.WorkloadClass.Lane;
import io.tideline.core.trace.TraceEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Q5 applied: the online guarantee (70% of the historical peak) becomes the floor of the queue that
 * serves the service, and the admission decisions use it. The standard organisation's search
 * inference queue (declared floor 12) serves the {@code ranker} service here.
 */
class OnlineFloorsTest {

  final OnlineFloors floors = new OnlineFloors(QuotaConfig.DEFAULTS);
  final QuotaDefinition declared = servingRanker(standard());

  static QuotaDefinition servingRanker(QuotaDefinition def) {
    List<QuotaNode> nodes = new ArrayList<>();
    for (QuotaNode n : def.nodes()) {
      nodes.add(n.path().equals(SEARCH_INFERENCE) ? n.withServices("ranker") : n);
    }
    return QuotaDefinition.of(def.version(), nodes);
  }

  static double floor(QuotaDefinition def, String path) {
    return def.node(path).orElseThrow().guaranteedGpus();
  }

  @Test
  void shouldKeepTheDeclaredFloorUntilTheServicesPeakIsKnown() {
    OnlineFloors.Applied a = floors.apply(declared, 48, Map.of("someone-else", 100.0));

    assertThat(floor(a.definition(), SEARCH_INFERENCE)).isEqualTo(12);
    assertThat(OnlineFloors.changes(declared, a.definition())).isEmpty();
    assertThat(a.trace()).isEmpty();
  }

  @Test
  void shouldLockSeventyPercentOfThePeakAsTheQueueFloorAndGrowTheAncestorsToHoldIt() {
    OnlineFloors.Applied a = floors.apply(declared, 48, Map.of("ranker", 40.0));

    // ceil(0.7 × 40) = 28; ranking = 8 + 28 = 36 > 20; search 36 > 20; acme 36 + 12 = 48 > 40.
    assertThat(floor(a.definition(), SEARCH_INFERENCE)).isEqualTo(28);
    assertThat(floor(a.definition(), "acme/search/ranking")).isEqualTo(36);
    assertThat(floor(a.definition(), "acme/search")).isEqualTo(36);
    assertThat(floor(a.definition(), "acme")).isEqualTo(48);
    assertThat(floor(a.definition(), SEARCH_TRAINING)).isEqualTo(8);
    assertThat(a.definition().version()).isEqualTo("def-7");
    assertThat(new QuotaDefinitionValidator().validate(a.definition())).isEmpty();
    assertThat(OnlineFloors.changes(declared, a.definition()))
        .contains(new OnlineFloors.FloorChange(SEARCH_INFERENCE, 12, 28))
        .extracting(OnlineFloors.FloorChange::path)
        .containsExactly("acme", "acme/search", "acme/search/ranking", SEARCH_INFERENCE);
    // Q1 recomputed: the online segment is 28 of 48; nothing of the fleet is left unguaranteed.
    assertThat(a.segments().onlineGuaranteed()).isEqualTo(28);
    assertThat(a.segments().onlineByService()).containsExactly(Map.entry("ranker", 28.0));
    assertThat(SharedPool.of(a.definition(), ledger()).poolGpus()).isZero();
    assertThat(a.trace()).extracting(TraceEntry::toString).first()
        .isEqualTo(SEARCH_INFERENCE + " | Q5 online floor | locked 28 | ranker 28 (peak 40)"
            + " (declared 12)");
  }

  @Test
  void shouldLetAFallingPeakShrinkTheFloorBelowTheDeclaredOneAndLeaveAncestorsAsWritten() {
    OnlineFloors.Applied risen = floors.apply(declared, 48, Map.of("ranker", 40.0));
    OnlineFloors.Applied fallen = floors.apply(declared, 48, Map.of("ranker", 10.0));

    assertThat(floor(fallen.definition(), SEARCH_INFERENCE)).isEqualTo(7);
    assertThat(floor(fallen.definition(), "acme/search/ranking")).isEqualTo(20);
    assertThat(floor(fallen.definition(), "acme")).isEqualTo(40);
    assertThat(OnlineFloors.changes(risen.definition(), fallen.definition()))
        .contains(new OnlineFloors.FloorChange(SEARCH_INFERENCE, 28, 7));
  }

  @Test
  void shouldSumTheGuaranteesOfEveryServiceAQueueServes() {
    List<QuotaNode> nodes = new ArrayList<>();
    for (QuotaNode n : standard().nodes()) {
      nodes.add(n.path().equals(SEARCH_INFERENCE) ? n.withServices("ranker", "chat") : n);
    }
    QuotaDefinition two = QuotaDefinition.of("def-8", nodes);

    OnlineFloors.Applied a = floors.apply(two, 48, Map.of("ranker", 10.0, "chat", 5.0));

    // ceil(7) + ceil(3.5) = 7 + 4
    assertThat(floor(a.definition(), SEARCH_INFERENCE)).isEqualTo(11);
  }

  @Test
  void shouldAdmitOnTheAppliedFloorWhatTheDeclaredFloorWouldHaveMadeBorrow() {
    QuotaAdmission admission = new QuotaAdmission(QuotaConfig.DEFAULTS);
    var request = job("rank-20").online("ranker").nonPreemptible().gpus(20).build();

    AdmissionVerdict before = admission.decide(request, null, declared, ledger(), T0);
    QuotaDefinition applied = floors.apply(declared, 48, Map.of("ranker", 40.0)).definition();
    AdmissionVerdict after = admission.decide(request, null, applied, ledger(), T0);

    assertThat(before.verdict()).isNotEqualTo(Verdict.GUARANTEED);
    assertThat(after.verdict()).isEqualTo(Verdict.GUARANTEED);
    assertThat(after.guaranteedGpus()).isEqualTo(20);
    assertThat(after.queue()).isEqualTo(SEARCH_INFERENCE);
  }

  @Test
  void shouldRefuseADefinitionThatMapsAServiceTwiceOrToANonInferenceQueue() {
    List<QuotaNode> nodes = new ArrayList<>();
    for (QuotaNode n : standard().nodes()) {
      if (n.path().equals(SEARCH_INFERENCE)) {
        nodes.add(n.withServices("ranker"));
      } else if (n.path().equals(ADS_TRAINING)) {
        nodes.add(n.withServices("ranker"));
      } else {
        nodes.add(n);
      }
    }
    nodes.add(QuotaNode.queue("acme/ads/ctr/inference", Lane.INFERENCE, 0, 0, 0)
        .withServices("ranker"));

    assertThat(new QuotaDefinitionValidator().validate(QuotaDefinition.of("bad", nodes)))
        .extracting(DefinitionError::toString)
        .contains(ADS_TRAINING + ": only an INFERENCE queue serves online services, this is a"
            + " QUEUE of lane TRAINING")
        .contains("acme/ads/ctr/inference: service 'ranker' is already served by '"
            + SEARCH_INFERENCE + "'");
  }

  @Test
  void shouldFindTheQueueServingAService() {
    assertThat(declared.queueServing("ranker")).map(QuotaNode::path).hasValue(SEARCH_INFERENCE);
    assertThat(declared.queueServing("chat")).isEmpty();
  }
}
