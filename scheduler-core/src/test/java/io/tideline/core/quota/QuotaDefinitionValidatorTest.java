package io.tideline.core.quota;

import static io.tideline.core.quota.QuotaTestKit.NO_CAP;
import static io.tideline.core.quota.QuotaTestKit.standard;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.model.WorkloadClass.Lane;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QuotaDefinitionValidatorTest {

  final QuotaDefinitionValidator validator = new QuotaDefinitionValidator();

  static QuotaDefinition with(QuotaNode... extra) {
    List<QuotaNode> nodes = new ArrayList<>(standard().nodes());
    nodes.addAll(List.of(extra));
    return QuotaDefinition.of("bad", nodes);
  }

  @Test
  void shouldAcceptTheStandardOrganisation() {
    assertThat(validator.validate(standard())).isEmpty();
  }

  @Test
  void shouldNameThePathAndReasonOfANegativeNumber() {
    QuotaDefinition def = with(QuotaNode.team("acme/ads/brand", -2, 4, 0),
        QuotaNode.queue("acme/ads/brand/training", Lane.TRAINING, 0, -1, 0));

    assertThat(validator.validate(def)).extracting(DefinitionError::toString).contains(
        "acme/ads/brand: guaranteed floor must not be negative, got -2",
        "acme/ads/brand/training: borrowing cap must not be negative, got -1");
  }

  @Test
  void shouldRejectChildrensFloorsExceedingTheirParent() {
    // ads/ctr has a floor of 12, already split 8 + 4: one more GPU does not fit.
    QuotaDefinition def = with(QuotaNode.queue("acme/ads/ctr/inference", Lane.INFERENCE, 1, 0, 0));

    assertThat(validator.validate(def)).extracting(DefinitionError::toString)
        .containsExactly("acme/ads/ctr: children's floors 13 exceed this node's floor 12");
  }

  @Test
  void shouldRejectAnUnknownParent() {
    QuotaDefinition def = with(QuotaNode.queue("acme/ads/brand/training", Lane.TRAINING, 0, 0, 0));

    assertThat(validator.validate(def)).extracting(DefinitionError::toString)
        .containsExactly("acme/ads/brand/training: unknown parent 'acme/ads/brand'");
  }

  @Test
  void shouldRejectWrongLevelsMissingLanesAndDuplicates() {
    QuotaDefinition def = with(
        QuotaNode.queue("acme/games", Lane.TRAINING, 0, 0, 0),
        new QuotaNode("acme/ads/ctr/x", NodeKind.QUEUE, null, 0, 0, 0, 1, null),
        QuotaNode.queue("acme/ads/ctr/batch2", Lane.BATCH, 0, 0, 0),
        QuotaNode.team("acme/ads/ctr", 0, 0, 0),
        QuotaNode.organisation("other", 0, NO_CAP));

    assertThat(validator.validate(def)).extracting(DefinitionError::toString).containsExactly(
        "acme/games: a QUEUE must sit under a TEAM, but 'acme' is a ORGANISATION",
        "acme/ads/ctr/x: a QUEUE must name its lane",
        "acme/ads/ctr/batch2: team 'acme/ads/ctr' already has a BATCH queue",
        "acme/ads/ctr: duplicate path",
        "<root>: exactly one ORGANISATION root is required, found 2");
  }

  @Test
  void shouldRejectFloorsBeyondTheirQ1Segments() {
    // Online guarantee for a peak of 15 is ceil(10.5) = 11 < the inference floor of 12.
    QuotaSegments segments = new SegmentCalculator(QuotaConfig.DEFAULTS)
        .compute(30, Map.of("ranker", 15.0), Map.of("pretrain", 20.0));

    assertThat(validator.validate(standard(), segments)).extracting(DefinitionError::toString)
        .containsExactly(
            "<inference queues>: floors 12 exceed the online guaranteed segment 11",
            "<all queues>: floors 32 exceed the fleet of 30 GPUs");
  }

  @Test
  void shouldRejectAZeroFairShareWeight() {
    QuotaDefinition def = with(QuotaNode.queue("acme/search/ranking/batch", Lane.BATCH, 0, 0, 0)
        .withWeight(0));

    assertThat(validator.validate(def)).extracting(DefinitionError::reason)
        .containsExactly("fair-share weight must be positive, got 0.0");
  }
}
