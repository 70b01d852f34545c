package io.tideline.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.GpuAssignment;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.DomainLevel;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.TidelineInfra;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The through-Kafka mode on a real broker and registry, two simulated hours in a few seconds.
 * The test plays placement's part of the contract: it answers the twin's first whole-node training
 * submission with a PLACED decision on {@code placement.decisions}, and the twin, as executor, must
 * start it on {@code jobs.lifecycle} in simulated event time.
 */
class KafkaTwinTest {

  private static final Instant START = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.DAYS)
      .minus(Duration.ofDays(1));
  private static final Duration HORIZON = Duration.ofHours(2);
  private static TidelineInfra infra;

  @BeforeAll
  static void infra() {
    infra = TidelineInfra.start();
    infra.broker().createTopics(TopicCatalogue.CLUSTER_INVENTORY, TopicCatalogue.CLUSTER_CLOCK,
        TopicCatalogue.GPU_TELEMETRY, TopicCatalogue.JOBS_SUBMITTED, TopicCatalogue.JOBS_LIFECYCLE,
        TopicCatalogue.PLACEMENT_DECISIONS, TopicCatalogue.EVICTIONS,
        TopicCatalogue.CAPACITY_RESERVATIONS, "quota.config");
  }

  @AfterAll
  static void stop() {
    infra.close();
  }

  @Test
  void shouldDriveTheServicesInSimulatedTimeAndExecuteAPlacement() throws Exception {
    // 1. a 4-node, 2-hour twin compressed into 8 s; this test plays placement
    SimConfig config = SimConfig.DEFAULTS.with(11L, 1, 4).withJobsPerDay(600).withStart(START);
    Scenario scenario = Scenario.synthetic(config);
    String registry = infra.config().get("tideline.registry.url");
    String bootstrap = infra.broker().bootstrapServers();
    KafkaTwin.Settings settings = new KafkaTwin.Settings(bootstrap, registry, "default", HORIZON,
        Duration.ofMinutes(1), Duration.ofMinutes(5), 8, Duration.ofSeconds(1), 0.7);
    KafkaTwin twin = new KafkaTwin(scenario, settings);
    CompletableFuture<SimResult> run = CompletableFuture.supplyAsync(() -> {
      try {
        return twin.run(System::currentTimeMillis, null);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });

    // 2. answer the first offline whole-GPU submission with PLACED on the first node
    JobSubmitted job = null;
    try (KafkaConsumer<String, Object> c = consumer(bootstrap, registry)) {
      c.subscribe(List.of(TopicCatalogue.JOBS_SUBMITTED));
      while (job == null && !run.isDone()) {
        for (ConsumerRecord<String, Object> r : c.poll(Duration.ofMillis(200))) {
          JobSubmitted s = (JobSubmitted) r.value();
          if (job == null && s.getServiceId() == null && s.getResources().getGpuShare() == 1.0
              && s.getResources().getGpuCount() <= 8) {
            job = s;
          }
        }
      }
    }
    assertThat(job).as("an offline submission within the horizon").isNotNull();
    String node = scenario.nodes().get(0).id();
    List<GpuAssignment> gpus = new ArrayList<>();
    for (int g = 0; g < job.getResources().getGpuCount(); g++) {
      gpus.add(GpuAssignment.newBuilder().setNodeId(node).setGpuIndex(g).setShare(1.0).build());
    }
    try (KafkaProducer<String, Object> p = new KafkaProducer<>(producerProps(bootstrap),
        new StringSerializer(), AvroSerdes.valueSerializer(AvroSerdes.serdeConfig(registry,
            true)))) {
      p.send(new ProducerRecord<>(TopicCatalogue.PLACEMENT_DECISIONS, "default",
          PlacementDecision.newBuilder().setDecisionId("test-" + job.getJobId())
              .setCluster("default").setJobId(job.getJobId())
              .setDecidedAt(job.getSubmittedAt()).setOutcome(PlacementOutcome.PLACED)
              .setAssignments(gpus).setDomainLevel(DomainLevel.NODE).setLedgerVersion(1)
              .setPolicyVersion("test").build())).get(30, TimeUnit.SECONDS);
    }
    SimResult result = run.get(120, TimeUnit.SECONDS);
    twin.close();

    // 3. what the services saw: the fleet, simulated ticks, submissions, the start
    List<ConsumerRecord<String, Object>> inventory = readAll(TopicCatalogue.CLUSTER_INVENTORY);
    assertThat(inventory).hasSize(4).allSatisfy(r ->
        assertThat(((NodeInventory) r.value()).getObservedAt()).isEqualTo(START));
    List<ConsumerRecord<String, Object>> ticks = readAll(TopicCatalogue.CLUSTER_CLOCK);
    assertThat(ticks).hasSize((int) HORIZON.toMinutes());
    for (int i = 0; i < ticks.size(); i++) {
      ClockTick t = (ClockTick) ticks.get(i).value();
      assertThat(t.getSource()).isEqualTo(ClockSource.SIMULATED);
      assertThat(t.getTime()).isEqualTo(START.plus(Duration.ofMinutes(i)));
      assertThat(ticks.get(i).timestamp()).isEqualTo(t.getTime().toEpochMilli());
    }
    final String id = job.getJobId();
    List<JobLifecycle> started = readAll(TopicCatalogue.JOBS_LIFECYCLE).stream()
        .map(r -> (JobLifecycle) r.value())
        .filter(l -> l.getJobId().equals(id) && l.getType() == LifecycleType.STARTED).toList();
    assertThat(started).hasSize(1);
    assertThat(started.get(0).getOccurredAt()).isAfterOrEqualTo(job.getSubmittedAt())
        .isBefore(START.plus(HORIZON));
    assertThat(started.get(0).getAssignments()).hasSize(gpus.size());
    assertThat(result.onlineScaleUps()).isPositive();
    assertThat(result.jobsSubmitted()).isPositive();
    assertThat(result.timeline()).hasSize((int) (HORIZON.toMinutes() / 5));
    assertThat(result.timeline().get(result.timeline().size() - 1).offlineGpus())
        .as("the placed job holds its GPUs unless it finished").isGreaterThanOrEqualTo(0);
  }

  private static List<ConsumerRecord<String, Object>> readAll(String topic) {
    List<ConsumerRecord<String, Object>> out = new ArrayList<>();
    try (KafkaConsumer<String, Object> c = consumer(infra.broker().bootstrapServers(),
        infra.config().get("tideline.registry.url"))) {
      var parts = c.partitionsFor(topic).stream()
          .map(p -> new org.apache.kafka.common.TopicPartition(topic, p.partition())).toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<org.apache.kafka.common.TopicPartition, Long> end = c.endOffsets(parts);
      while (parts.stream().anyMatch(p -> c.position(p) < end.get(p))) {
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
    out.sort(java.util.Comparator.comparingLong(ConsumerRecord::timestamp));
    return out;
  }

  private static KafkaConsumer<String, Object> consumer(String bootstrap, String registry) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "test-" + UUID.randomUUID());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    return new KafkaConsumer<>(p, new StringDeserializer(),
        AvroSerdes.valueDeserializer(AvroSerdes.serdeConfig(registry, false)));
  }

  private static Properties producerProps(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return p;
  }
}
