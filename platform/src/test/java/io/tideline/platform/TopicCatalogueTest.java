package io.tideline.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.Contracts;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.topics.TopicSpec;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TopicCatalogueTest {

  @Test
  void shouldGiveEveryTopicAContractFromTheSchemas() {
    Set<String> records = Contracts.TOPIC_RECORDS.stream().map(Class::getSimpleName)
        .collect(Collectors.toSet());
    assertThat(TopicCatalogue.all()).isNotEmpty()
        .allSatisfy(t -> assertThat(records).contains(t.valueRecord()));
  }

  @Test
  void shouldCompactOnlyLatestValueTopics() {
    assertThat(TopicCatalogue.all().stream().filter(TopicSpec::compacted).map(TopicSpec::name))
        .containsExactlyInAnyOrder("cluster.inventory", "quota.state", "placement.queue",
            "notices.deliveries", "notices.joins", "notify.directory", "quota.config",
            "forecast.holidays", "executor.jobs");
  }

  @Test
  void shouldKeepTheLedgerInputLogsAndTheLedgerItselfForeverForAudits() {
    assertThat(TopicCatalogue.all().stream().filter(TopicSpec::retainedForever).map(TopicSpec::name))
        .containsExactlyInAnyOrder("placement.ledger.inputs", "quota.inputs",
            "preemption.inputs",
            // the allocation ledger itself: followers (preemption's view) fold it from offset 0
            "placement.ledger");
    assertThat(TopicCatalogue.all()).filteredOn(TopicSpec::retainedForever)
        .allSatisfy(t -> assertThat(t.configs())
            .containsEntry("cleanup.policy", "delete").containsEntry("retention.ms", "-1"));
    assertThat(TopicCatalogue.all()).filteredOn(t -> !t.retainedForever())
        .allSatisfy(t -> assertThat(t.configs()).doesNotContainKey("retention.ms"));
  }

  @Test
  void shouldNameEveryConstantInTheCatalogue() throws Exception {
    for (var f : TopicCatalogue.class.getFields()) {
      if (f.getType() == String.class) {
        assertThat(TopicCatalogue.find((String) f.get(null))).as(f.getName()).isPresent();
      }
    }
  }

  /**
   * Issue #16 finding 2: every topic a service consumes has a dead-letter topic, so a record it
   * cannot use always has somewhere to go with its reason (the ledgers' input logs, written only
   * by their own intake, and internal topics use {@code streams.dlq}).
   */
  @Test
  void shouldGiveEveryTopicAServiceConsumesADeadLetterTopic() {
    Set<String> services = Set.of("telemetry", "forecaster", "quota", "placement", "preemption",
        "notifier", "executor", "all");
    assertThat(TopicCatalogue.find("streams.dlq")).isPresent();
    assertThat(TopicCatalogue.all()).filteredOn(t -> !t.name().endsWith(".dlq")
            && !t.retainedForever())
        .filteredOn(t -> {
          String consumers = t.flow().substring(t.flow().indexOf("->") + 2);
          return services.stream().anyMatch(consumers::contains);
        })
        .allSatisfy(t -> assertThat(TopicCatalogue.find(t.deadLetterTopic()))
            .as("%s (%s) has a %s", t.name(), t.flow(), t.deadLetterTopic()).isPresent());
  }

  @Test
  void shouldListEveryTopicOnce() {
    var names = TopicCatalogue.all().stream().map(TopicSpec::name).toList();
    assertThat(names).doesNotHaveDuplicates();
  }
}
