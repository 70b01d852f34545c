package io.tideline.platform.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tideline.platform.kernel.PlacementHost;
import io.tideline.platform.kernel.PreemptionHost;
import io.tideline.platform.kernel.forecast.ForecastKernelHost;
import io.tideline.platform.kernel.quota.QuotaKernelHost;
import io.tideline.platform.security.AclRule.Operation;
import io.tideline.platform.security.AclRule.Pattern;
import io.tideline.platform.security.AclRule.Resource;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.topics.TopicSpec;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.junit.jupiter.api.Test;

/** The ACL generator against the real catalogue (issue #18, ADR 0023). */
class AclPlanTest {

  private static final AclPlan PLAN = AclPlan.fromCatalogue();

  /** A produce or consume pair of the catalogue, read independently of the generator's loop. */
  record Pair(Identity identity, String topic, Operation operation) {}

  private static List<Pair> cataloguePairs() {
    List<Pair> pairs = new ArrayList<>();
    for (TopicSpec t : TopicCatalogue.all()) {
      Flow f = Flow.parse(t.flow(), t.name());
      f.producers().stream().flatMap(w -> Identity.named(w, t.name()).stream()).distinct()
          .forEach(i -> pairs.add(new Pair(i, t.name(), Operation.WRITE)));
      f.consumers().stream().flatMap(w -> Identity.named(w, t.name()).stream()).distinct()
          .forEach(i -> pairs.add(new Pair(i, t.name(), Operation.READ)));
    }
    return pairs;
  }

  @Test
  void shouldGiveEveryProduceAndConsumePairOfTheCatalogueExactlyOneAcl() {
    List<Pair> pairs = cataloguePairs();
    assertThat(pairs).hasSizeGreaterThan(100);
    for (Pair p : pairs) {
      assertThat(PLAN.rules()).as("%s", p)
          .filteredOn(r -> r.identity() == p.identity() && r.resource() == Resource.TOPIC
              && r.pattern() == Pattern.LITERAL && r.name().equals(p.topic())
              && r.operation() == p.operation())
          .hasSize(1);
    }
    // and no literal topic rule that no pair asks for
    assertThat(PLAN.rules()).filteredOn(r -> r.resource() == Resource.TOPIC
            && r.pattern() == Pattern.LITERAL)
        .allSatisfy(r -> assertThat(pairs)
            .contains(new Pair(r.identity(), r.name(), r.operation())));
  }

  @Test
  void shouldNeverGrantAllNorAWildcardNorAnythingOnTheCluster() {
    assertThat(KafkaAcls.bindings(PLAN)).isNotEmpty().allSatisfy(b -> {
      assertThat(b.entry().operation()).isNotIn(AclOperation.ALL, AclOperation.ANY,
          AclOperation.UNKNOWN, AclOperation.CLUSTER_ACTION, AclOperation.ALTER,
          AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE);
      assertThat(b.pattern().name()).isNotEqualTo(ResourcePattern.WILDCARD_RESOURCE)
          .doesNotContain("*");
      assertThat(b.pattern().patternType()).isIn(PatternType.LITERAL, PatternType.PREFIXED);
      assertThat(b.pattern().resourceType().name()).isIn("TOPIC", "GROUP", "TRANSACTIONAL_ID");
      assertThat(b.entry().principal()).startsWith("User:").isNotEqualTo("User:*");
    });
    // a prefix is only ever a Streams application's own namespace or a service's own group
    assertThat(PLAN.rules()).filteredOn(r -> r.pattern() == Pattern.PREFIXED)
        .allSatisfy(r -> assertThat(r.name()).startsWith(r.identity().user()));
  }

  @Test
  void shouldLetTheSubmitterWriteJobsSubmittedAndNothingElse() {
    assertThat(PLAN.of(Identity.SUBMITTER)).singleElement().satisfies(r -> {
      assertThat(r.resource()).isEqualTo(Resource.TOPIC);
      assertThat(r.name()).isEqualTo(TopicCatalogue.JOBS_SUBMITTED);
      assertThat(r.operation()).isEqualTo(Operation.WRITE);
    });
    assertThat(PLAN.allows(Identity.SUBMITTER, TopicCatalogue.NOTICES, Operation.READ)).isFalse();
    assertThat(PLAN.allows(Identity.SUBMITTER, "quota.config", Operation.WRITE)).isFalse();
  }

  /** Each forged write of issue #18 has one legitimate writer, and only that one. */
  @Test
  void shouldLeaveEachForgedTopicOfTheIssueWithItsOwnerAsOnlyWriter() {
    Map<String, Identity> owners = Map.of(
        TopicCatalogue.PREEMPTION_DECISIONS, Identity.PREEMPTION,
        "quota.config", Identity.OPERATOR,
        TopicCatalogue.JOBS_LIFECYCLE, Identity.EXECUTOR,
        TopicCatalogue.CLUSTER_INVENTORY, Identity.TELEMETRY,
        "notify.directory", Identity.NOTIFIER,
        TopicCatalogue.EVICTIONS, Identity.PLACEMENT);
    owners.forEach((topic, owner) -> {
      for (Identity i : Identity.values()) {
        assertThat(PLAN.allows(i, topic, Operation.WRITE)).as("%s writes %s", i, topic)
            .isEqualTo(i == owner);
      }
    });
  }

  /**
   * The catalogue must be complete, or a secured service fails: every service reads each topic its
   * kernel host takes as input, and may dead-letter a bad record of it (ADR 0003).
   */
  @Test
  void shouldLetEveryServiceReadItsInputsAndDeadLetterThem() {
    Map<Identity, List<String>> inputs = Map.of(
        Identity.PLACEMENT, PlacementHost.inputTopics(),
        Identity.PREEMPTION, PreemptionHost.inputTopics(),
        Identity.FORECASTER, ForecastKernelHost.inputTopics(),
        Identity.QUOTA, QuotaKernelHost.inputTopics());
    inputs.forEach((service, topics) -> {
      assertThat(topics).isNotEmpty();
      for (String t : topics) {
        assertThat(PLAN.allows(service, t, Operation.READ)).as("%s reads %s", service, t).isTrue();
        assertThat(PLAN.allows(service, t + ".dlq", Operation.WRITE))
            .as("%s dead-letters %s", service, t).isTrue();
      }
      // the input log each single writer keeps of them
      assertThat(PLAN.rules()).filteredOn(r -> r.identity() == service
          && r.operation() == Operation.WRITE && r.name().endsWith("inputs")).isNotNull();
    });
  }

  /**
   * Quarkus waits at start until every topic of {@code quarkus.kafka-streams.topics} is listed,
   * and a secured broker lists only the topics a principal may describe: each one must be one the
   * service reads or writes, and the {@code application.id} must be the identity's.
   */
  @Test
  void shouldLetEveryStreamsServiceSeeEveryTopicItWaitsFor() throws IOException {
    for (Identity i : Identity.values()) {
      if (i.streamsApplicationId().isEmpty()) {
        continue;
      }
      Properties p = new Properties();
      Path file = Path.of("..", i.user(), "src/main/resources/application.properties");
      try (Reader r = Files.newBufferedReader(file)) {
        p.load(r);
      }
      assertThat(p.getProperty("quarkus.kafka-streams.application-id")).as(file.toString())
          .isEqualTo(i.streamsApplicationId().orElseThrow());
      for (String t : p.getProperty("quarkus.kafka-streams.topics").split(",")) {
        assertThat(PLAN.allows(i, t.trim(), Operation.READ)
            || PLAN.allows(i, t.trim(), Operation.WRITE)).as("%s may see %s (%s)", i, t, file)
            .isTrue();
      }
    }
  }

  @Test
  void shouldGiveAStreamsServiceItsOwnGroupTransactionsAndInternalTopicsOnly() {
    assertThat(PLAN.of(Identity.PLACEMENT)).filteredOn(r -> r.pattern() == Pattern.PREFIXED)
        .extracting(r -> r.resource() + " " + r.name() + " " + r.operation())
        .containsExactlyInAnyOrder(
            "TOPIC placement-svc- CREATE", "TOPIC placement-svc- READ", "TOPIC placement-svc- WRITE",
            "TOPIC placement-svc- DELETE", "TOPIC placement-svc- DESCRIBE_CONFIGS",
            "GROUP placement-svc READ", "TRANSACTIONAL_ID placement-svc WRITE");
    assertThat(PLAN.of(Identity.TELEMETRY)).allSatisfy(r -> {
      assertThat(r.resource()).isEqualTo(Resource.TOPIC);
      assertThat(r.operation()).isEqualTo(Operation.WRITE);
    });
  }

  @Test
  void shouldRefuseACatalogueNamingAPartyNobodyIs() {
    var t = new TopicSpec("x.y", 1, false, false, "k", "V", "quota -> hackers");
    assertThatThrownBy(() -> AclPlan.of(List.of(t)))
        .hasMessageContaining("x.y").hasMessageContaining("\"hackers\"");
    var noArrow = new TopicSpec("x.z", 1, false, false, "k", "V", "quota");
    assertThatThrownBy(() -> AclPlan.of(List.of(noArrow))).hasMessageContaining("producers -> consumers");
  }

  @Test
  void shouldReadCommentsAndAlternativesOfTheFlowColumn() {
    Flow f = Flow.parse("telemetry/simulator -> notifier (restored at start); CLI; Slack", "t");
    assertThat(f.producers()).containsExactly("telemetry", "simulator");
    assertThat(f.consumers()).containsExactly("notifier", "CLI", "Slack");
    assertThat(Identity.named("Slack", "t")).isEmpty();
  }
}
