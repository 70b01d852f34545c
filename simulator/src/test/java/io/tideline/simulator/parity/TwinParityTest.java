package io.tideline.simulator.parity;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.serde.ContractSubjects;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.quota.config.QuotaPolicy;
import io.tideline.simulator.InProcessTransport;
import io.tideline.simulator.KafkaTransport;
import io.tideline.simulator.Policy;
import io.tideline.simulator.Scenario;
import io.tideline.simulator.SimConfig;
import io.tideline.simulator.SimResult;
import io.tideline.simulator.Twin;
import io.tideline.simulator.Twins;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.TidelineInfra;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * Parity, the proof of ADR 0008: one seeded scenario played by the same world through the
 * in-process twin (the kernels' hosts on a queue) and through the services' own topologies on a
 * real broker and registry in lockstep gives the same decisions, compared by content — every
 * placement decision (job → GPUs), eviction, verdict, preemption request and decision, reclaim,
 * ledger change, slot forecast and capacity reservation, per key in the order produced — and
 * therefore the same table.
 */
class TwinParityTest {

  /** The decisions compared: everything the schedulers publish to each other and to the world. */
  static final List<String> COMPARED = List.of(TopicCatalogue.PLACEMENT_DECISIONS,
      TopicCatalogue.EVICTIONS, TopicCatalogue.QUOTA_VERDICTS, TopicCatalogue.PREEMPTION_REQUESTS,
      TopicCatalogue.PREEMPTION_DECISIONS, TopicCatalogue.QUOTA_RECLAIMS,
      TopicCatalogue.PLACEMENT_LEDGER, TopicCatalogue.CAPACITY_RESERVATIONS,
      TopicCatalogue.FORECAST_SLOTS);

  /**
   * A small fleet under pressure (8 nodes, 400 submissions a day), so six simulated hours hold
   * every hand-off: placements, queueing, preemption requests and decisions, quota reclaims and
   * evictions.
   */
  static final SimConfig SCENARIO = SimConfig.DEFAULTS.with(42L, 1, 8).withJobsPerDay(400);
  static final Duration HORIZON = Duration.ofHours(6);

  @Test
  void shouldDecideTheSameThroughTheServicesOnKafkaAsInProcess() throws Exception {
    Scenario scenario = Scenario.synthetic(SCENARIO);
    Instant end = SCENARIO.start().plus(HORIZON);
    Twin.Settings clock = Twin.Settings.of(SCENARIO);

    Map<String, List<String>> inProcess = new TreeMap<>();
    InProcessTransport local = Twins.inProcess(scenario, Policy.TIDELINE)
        .tap(r -> record(inProcess, r.topic(), r.key(), r.value()));
    SimResult twin = Twin.run("tideline", Twins.world(scenario), local, clock, end, null);

    Map<String, List<String>> throughKafka;
    SimResult services;
    try (TidelineInfra infra = TidelineInfra.start()) {
      ServiceApps.createTopics(infra);
      // as `up` does: the contracts first (the transport looks schemas up, never registers)
      ContractSubjects.register(infra.registry().url(), ContractSubjects.all());
      try (ServiceApps apps = ServiceApps.start(infra,
          Policy.TIDELINE.placement(Twins.CLUSTER, scenario),
          Policy.TIDELINE.preemptionPolicy(Twins.CLUSTER),
          QuotaPolicy.defaults(Twins.CLUSTER, null), Twins.forecast(scenario));
          KafkaTransport kafka = new KafkaTransport(new KafkaTransport.Settings(
              infra.broker().bootstrapServers(), infra.registry().url(), apps.groups(),
              Duration.ofMinutes(2), 20), System::currentTimeMillis)) {
        services = Twin.run("tideline", Twins.world(scenario), kafka, clock, end, null);
        throughKafka = readAll(infra);
      }
    }

    for (String exercised : List.of(TopicCatalogue.PLACEMENT_DECISIONS,
        TopicCatalogue.PREEMPTION_REQUESTS, TopicCatalogue.PREEMPTION_DECISIONS,
        TopicCatalogue.QUOTA_RECLAIMS, TopicCatalogue.EVICTIONS,
        TopicCatalogue.CAPACITY_RESERVATIONS)) {
      assertThat(inProcess.get(exercised)).as("the scenario exercises %s", exercised)
          .isNotEmpty();
    }
    for (String topic : COMPARED) {
      Map<String, List<String>> a = byKey(inProcess, topic);
      Map<String, List<String>> b = byKey(throughKafka, topic);
      assertThat(b).as("%s: the services on Kafka against the in-process twin", topic)
          .isEqualTo(a);
    }
    assertThat(services).as("the table and timeline").isEqualTo(twin);
  }

  /** Every record of the compared topics, from the beginning, committed only. */
  private static Map<String, List<String>> readAll(TidelineInfra infra) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("parity-reader"));
    Map<String, Object> serde = AvroSerdes.serdeConfig(infra.registry().url(), true);
    Map<String, List<String>> out = new TreeMap<>();
    try (KafkaConsumer<String, Object> c = new KafkaConsumer<>(p, new StringDeserializer(),
        AvroSerdes.valueDeserializer(serde))) {
      List<TopicPartition> parts = new ArrayList<>();
      for (String t : COMPARED) {
        for (PartitionInfo pi : c.partitionsFor(t)) {
          parts.add(new TopicPartition(t, pi.partition()));
        }
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> ends = c.endOffsets(parts);
      long until = System.currentTimeMillis() + 120_000;
      while (parts.stream().anyMatch(tp -> c.position(tp) < ends.get(tp))
          && System.currentTimeMillis() < until) {
        for (ConsumerRecord<String, Object> r : c.poll(Duration.ofMillis(200))) {
          record(out, r.topic(), r.key(), r.value());
        }
      }
    }
    return out;
  }

  private static void record(Map<String, List<String>> into, String topic, String key,
      Object value) {
    into.computeIfAbsent(topic, t -> new ArrayList<>())
        .add(key + "\u0000" + (value == null ? "null" : value.toString()));
  }

  /** One topic's records per key, in the order produced (Kafka orders a key, not a topic). */
  private static Map<String, List<String>> byKey(Map<String, List<String>> all, String topic) {
    Map<String, List<String>> out = new TreeMap<>();
    for (String r : all.getOrDefault(topic, List.of())) {
      int cut = r.indexOf('\u0000');
      out.computeIfAbsent(r.substring(0, cut), k -> new ArrayList<>()).add(r.substring(cut + 1));
    }
    return out;
  }

}
