package io.tideline.platform.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tideline.platform.topics.TopicCatalogue;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** The provenance rule (ADR 0029): owners come from the catalogue, the same column as the ACLs. */
class ProvenanceTest {

  @Test
  void shouldTakeEachDecisionTopicsOwnerFromTheCatalogue() {
    assertThat(Provenance.owners(TopicCatalogue.PREEMPTION_DECISIONS))
        .containsExactly("preemption-svc");
    assertThat(Provenance.owners(TopicCatalogue.EVICTIONS)).containsExactly("placement-svc");
    assertThat(Provenance.owners(TopicCatalogue.QUOTA_RECLAIMS)).containsExactly("quota-svc");
    assertThat(Provenance.owners(TopicCatalogue.PLACEMENT_DECISIONS))
        .containsExactly("placement-svc");
    // the catalogue's "telemetry/simulator": either may write the clock
    assertThat(Provenance.owners(TopicCatalogue.CLUSTER_CLOCK))
        .containsExactly("gpu-telemetry-svc", "tideline-simulator");
  }

  @Test
  void shouldRefuseAGuardedRecordWithoutAStamp() {
    assertThat(Provenance.DEFAULT.refusal(TopicCatalogue.PREEMPTION_DECISIONS, (String) null))
        .isEqualTo("no tideline-producer header: preemption.decisions is written only by"
            + " preemption-svc (expected preemption-svc, found none)");
  }

  @Test
  void shouldRefuseAGuardedRecordStampedByAnotherPrincipal() {
    assertThat(Provenance.DEFAULT.refusal(TopicCatalogue.EVICTIONS,
        Provenance.stampOf("tideline-submitter")))
        .isEqualTo("written by tideline-submitter, but evictions is written only by"
            + " placement-svc (expected placement-svc, found tideline-submitter)");
  }

  @Test
  void shouldGuardTheOperatorsQuotaDocumentAndTheExecutorsLifecycleFacts() {
    assertThat(Provenance.DEFAULT.refusal("quota.config", Provenance.stampOf("tideline-operator")))
        .isNull();
    assertThat(Provenance.DEFAULT.refusal("quota.config", (String) null))
        .contains("quota.config is written only by tideline-operator");
    assertThat(Provenance.DEFAULT.refusal(TopicCatalogue.JOBS_LIFECYCLE,
        Provenance.stampOf("tideline-executor"))).isNull();
    assertThat(Provenance.DEFAULT.refusal(TopicCatalogue.JOBS_LIFECYCLE,
        Provenance.stampOf("tideline-simulator")))
        .contains("jobs.lifecycle is written only by tideline-executor");
  }

  @Test
  void shouldWriteEachTopicAsItsOwnerWhenOneProducerPlaysEveryRole() {
    Map<String, String> roles = ProducerStamp.asOwners("tideline-simulator");

    assertThat(roles).containsEntry(TopicCatalogue.JOBS_LIFECYCLE, "tideline-executor")
        .containsEntry("quota.config", "tideline-operator")
        .containsEntry(TopicCatalogue.JOBS_SUBMITTED, "tideline-submitter")
        .containsEntry(TopicCatalogue.GPU_TELEMETRY, "gpu-telemetry-svc")
        .doesNotContainKey(TopicCatalogue.CLUSTER_CLOCK); // the simulator's own
  }

  @Test
  void shouldAcceptTheOwnersRecordAndLeaveUnguardedTopicsAlone() {
    assertThat(Provenance.DEFAULT.refusal(TopicCatalogue.QUOTA_RECLAIMS,
        Provenance.stampOf("quota-svc"))).isNull();
    assertThat(Provenance.DEFAULT.refusal(TopicCatalogue.JOBS_SUBMITTED, (String) null)).isNull();
  }

  @Test
  void shouldRefuseToGuardATopicTheCatalogueDoesNotKnow() {
    assertThatThrownBy(() -> new Provenance(List.of("no.such.topic")))
        .hasMessageContaining("no.such.topic");
  }

  @Test
  void shouldStampEveryRecordWithTheProducersIdentityReplacingAnyStampBefore() {
    ProducerStamp stamp = new ProducerStamp();
    Map<String, Object> config = new HashMap<>();
    ProducerStamp.configure(config, "placement-svc");
    stamp.configure(config);
    ProducerRecord<Object, Object> forwarded = new ProducerRecord<>("evictions", null, null,
        "k", "v", Provenance.stampOf("preemption-svc"));

    ProducerRecord<Object, Object> sent = stamp.onSend(forwarded);

    assertThat(Provenance.stamp(sent.headers())).isEqualTo("placement-svc");
    assertThat(sent.headers().headers(Provenance.HEADER)).hasSize(1);
  }

  @Test
  void shouldStampEachTopicWithTheRoleThatWritesItWhenOneProducerPlaysSeveral() {
    ProducerStamp stamp = new ProducerStamp();
    Map<String, Object> config = new HashMap<>();
    ProducerStamp.configure(config, "tideline-simulator",
        Map.of(TopicCatalogue.JOBS_LIFECYCLE, "tideline-executor"));
    stamp.configure(config);

    ProducerRecord<Object, Object> lifecycle = stamp.onSend(new ProducerRecord<>(
        TopicCatalogue.JOBS_LIFECYCLE, null, null, "job-1", "v", Provenance.stampOf(null)));
    ProducerRecord<Object, Object> tick = stamp.onSend(new ProducerRecord<>(
        TopicCatalogue.CLUSTER_CLOCK, null, null, "c", "v", Provenance.stampOf(null)));

    assertThat(Provenance.stamp(lifecycle.headers())).isEqualTo("tideline-executor");
    assertThat(Provenance.stamp(tick.headers())).isEqualTo("tideline-simulator");
  }

  @Test
  void shouldRefuseToStartAProducerThatDoesNotSayWhoItIs() {
    assertThatThrownBy(() -> new ProducerStamp().configure(Map.of()))
        .hasMessageContaining("tideline.producer.identity is not set");
  }
}
