package io.tideline.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.GpuSample;
import io.tideline.events.GpuSampleBatch;
import io.tideline.platform.telemetry.SampleBatches;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeInventory;
import io.tideline.events.SampleState;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.TidelineInfraResource;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * End to end on a real broker and registry: the service scrapes captured dcgm-exporter output
 * from a real HTTP server and publishes Avro GpuSamples keyed by gpuId; a failing exporter turns
 * that node's GPUs STALE until it answers again; the 847-host topology becomes cluster.inventory;
 * cluster.clock ticks.
 */
@QuarkusTest
@QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)
@QuarkusTestResource(value = FixtureExporterResource.class, restrictToAnnotatedClass = true)
class TelemetryEndToEndTest {

  static final Set<String> H100_GPUS = Set.of(
      "GPU-15704b32-f531-14ce-0530-1ac21e4b68e6", "GPU-edc718f8-e593-6468-b9f9-563d508366ed",
      "GPU-e2d9b65e-98cb-5b7a-90f0-e0336573f9e2", "GPU-3a325419-de5f-778f-cf4e-fe7290362ac5",
      "GPU-275ad37d-ebd6-4cf6-3867-0499ba033a12", "GPU-3cab564d-1f63-674b-a831-024600bf985c",
      "GPU-d0f25a6f-9a3f-61b9-c128-3d14759651d7", "GPU-9bc10e9a-e27e-652b-9a1e-e84f7e446206");
  static final String L4_GPU = "GPU-c2f76b33-7953-256e-8f33-1343419b1a1c";

  @Inject MeterRegistry meters;

  @Test
  void shouldPublishEveryScrapedGpuAsAvroKeyedByGpuId() {
    try (var c = consumer(TopicCatalogue.GPU_TELEMETRY, GpuSample.class, true)) {
      List<ConsumerRecord<String, GpuSample>> seen = c.until(all -> okGpus(all).size() >= 9);

      Map<String, GpuSample> byGpu = seen.stream().filter(r -> r.value().getState() == SampleState.OK)
          .collect(Collectors.toMap(ConsumerRecord::key, ConsumerRecord::value, (a, b) -> b));
      assertThat(byGpu.keySet()).containsAll(H100_GPUS).contains(L4_GPU);
      assertThat(seen).allSatisfy(r -> assertThat(r.key()).isEqualTo(r.value().getGpuId()));
      GpuSample nim = byGpu.get("GPU-d0f25a6f-9a3f-61b9-c128-3d14759651d7");
      assertThat(nim.getServiceId()).isEqualTo("llama-3-2-1b");
      assertThat(nim.getPowerWatts()).isEqualTo(112.67);
      assertThat(nim.getNodeId()).isEqualTo("ip-10-0-180-136.ec2.internal");
      GpuSample l4 = byGpu.get(L4_GPU);
      assertThat(l4.getMemoryFreeMiB()).isEqualTo(22563.0);
      assertThat(l4.getNodeId()).isEqualTo("i-030791dc5a37cd257");
    }
  }

  @Test
  void shouldPublishEachNodesScrapeAsOneBatchKeyedByNode() {
    try (var c = consumer(TopicCatalogue.GPU_TELEMETRY_BATCHES, GpuSampleBatch.class, true)) {
      List<ConsumerRecord<String, GpuSampleBatch>> seen = c.until(all -> all.stream()
          .anyMatch(r -> okIds(r.value()).containsAll(H100_GPUS)));

      assertThat(seen).allSatisfy(r -> assertThat(r.key()).isEqualTo(r.value().getNodeId()));
      GpuSampleBatch h100 = seen.stream().map(ConsumerRecord::value)
          .filter(b -> okIds(b).containsAll(H100_GPUS)).findFirst().orElseThrow();
      assertThat(h100.getNodeId()).isEqualTo("ip-10-0-180-136.ec2.internal");
      assertThat(h100.getGpus()).hasSize(8); // the node's GPUs in one record, nothing else
      GpuSample nim = SampleBatches.samples(h100).stream()
          .filter(s -> s.getGpuId().equals("GPU-d0f25a6f-9a3f-61b9-c128-3d14759651d7"))
          .findFirst().orElseThrow();
      assertThat(nim.getServiceId()).isEqualTo("llama-3-2-1b");
      assertThat(nim.getPowerWatts()).isEqualTo(112.67);
      assertThat(nim.getNodeId()).isEqualTo("ip-10-0-180-136.ec2.internal");
    }
  }

  private static Set<String> okIds(GpuSampleBatch b) {
    return b.getGpus().stream().filter(g -> g.getState() == SampleState.OK)
        .map(g -> g.getGpuId()).collect(Collectors.toSet());
  }

  @Test
  void shouldMarkAFailedNodesGpusStaleAndClearItWhenTheExporterRecovers() {
    try (var c = consumer(TopicCatalogue.GPU_TELEMETRY, GpuSample.class, false)) {
      c.until(all -> okGpus(all).containsAll(H100_GPUS)); // the node has been seen
      double malformedBefore = counter("tideline.telemetry.malformed.lines");
      try {
        FixtureExporterResource.exporter().fail(FixtureExporterResource.H100_PATH, 503);
        List<ConsumerRecord<String, GpuSample>> failing = c.until(all -> staleGpus(all).containsAll(H100_GPUS));

        assertThat(failing.stream().map(ConsumerRecord::value).filter(s -> s.getState() == SampleState.STALE))
            .allSatisfy(s -> {
              assertThat(H100_GPUS).contains(s.getGpuId());
              assertThat(s.getUtilizationPct()).isNull();
              assertThat(s.getPowerWatts()).isNull();
              assertThat(s.getTemperatureC()).isNull();
            });
        assertThat(gauge("tideline.telemetry.stale.gpus")).isEqualTo(8.0);
      } finally {
        // Recovery, with a malformed line the service must skip and count.
        FixtureExporterResource.exporter().serve(FixtureExporterResource.H100_PATH,
            Fixtures.text(Fixtures.H100_EKS) + "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\" 17\n");
      }
      List<ConsumerRecord<String, GpuSample>> all = c.until(recs -> okAfterStale(recs).containsAll(H100_GPUS));

      assertThat(okAfterStale(all)).containsAll(H100_GPUS);
      assertThat(counter("tideline.telemetry.malformed.lines")).isGreaterThan(malformedBefore);
    }
  }

  @Test
  void shouldPublishTheInventoryOfThe847HostTopology() {
    try (var c = consumer(TopicCatalogue.CLUSTER_INVENTORY, NodeInventory.class, true)) {
      List<ConsumerRecord<String, NodeInventory>> joined = c.until(all -> all.size() >= 847);

      assertThat(joined).hasSize(847);
      assertThat(joined).allSatisfy(r -> {
        assertThat(r.value().getChange()).isEqualTo(NodeChange.JOINED);
        assertThat(r.key()).isEqualTo(r.value().getNodeId());
      });
      assertThat(joined.stream().map(r -> r.value().getSwitchPath().getAccessSwitch()).distinct()).hasSize(119);
      assertThat(joined.stream().map(r -> r.value().getSwitchPath().getAggregationSwitch()).distinct()).hasSize(3);
      NodeInventory first = joined.stream().map(ConsumerRecord::value)
          .filter(n -> n.getNodeId().startsWith("0c9d9de1")).findFirst().orElseThrow();
      assertThat(first.getSwitchPath().getAccessSwitch()).isEqualTo("G6/P10/S14");
      assertThat(first.getGpuModel()).isEqualTo("NVIDIA A800-SXM4-80GB");
    }
  }

  @Test
  void shouldTickTheClusterClockFromTheWallClock() {
    try (var c = consumer(TopicCatalogue.CLUSTER_CLOCK, ClockTick.class, true)) {
      List<ConsumerRecord<String, ClockTick>> ticks = c.until(all -> all.size() >= 2);

      ClockTick a = ticks.get(0).value();
      ClockTick b = ticks.get(1).value();
      assertThat(a.getSource()).isEqualTo(ClockSource.WALL);
      assertThat(a.getIntervalMillis()).isEqualTo(1000);
      assertThat(b.getSequence()).isGreaterThan(a.getSequence());
      assertThat(b.getTime().toEpochMilli() - a.getTime().toEpochMilli())
          .isEqualTo((b.getSequence() - a.getSequence()) * 1000);
      assertThat(ticks.get(0).key()).isEqualTo("default");
    }
  }

  // --- helpers ---

  static Set<String> okGpus(List<ConsumerRecord<String, GpuSample>> all) {
    return gpus(all, s -> s.getState() == SampleState.OK);
  }

  static Set<String> staleGpus(List<ConsumerRecord<String, GpuSample>> all) {
    return gpus(all, s -> s.getState() == SampleState.STALE);
  }

  /** GPUs with an OK sample later (by event time) than one of their STALE samples. */
  static Set<String> okAfterStale(List<ConsumerRecord<String, GpuSample>> all) {
    Map<String, java.time.Instant> firstStale = new java.util.HashMap<>();
    for (var r : all) {
      if (r.value().getState() == SampleState.STALE) {
        firstStale.merge(r.key(), r.value().getSampledAt(), (x, y) -> x.isBefore(y) ? x : y);
      }
    }
    return gpus(all, s -> s.getState() == SampleState.OK && firstStale.containsKey(s.getGpuId())
        && s.getSampledAt().isAfter(firstStale.get(s.getGpuId())));
  }

  static Set<String> gpus(List<ConsumerRecord<String, GpuSample>> all, Predicate<GpuSample> p) {
    return all.stream().map(ConsumerRecord::value).filter(p).map(GpuSample::getGpuId)
        .collect(Collectors.toSet());
  }

  private double counter(String name) {
    return meters.find(name).counters().stream().mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
  }

  private double gauge(String name) {
    var g = meters.find(name).gauge();
    return g == null ? Double.NaN : g.value();
  }

  static <T> Reader<T> consumer(String topic, Class<T> type, boolean fromStart) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TidelineInfraResource.infra().broker().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("e2e-" + topic));
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, fromStart ? "earliest" : "latest");
    KafkaConsumer<String, T> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
        AvroSerdes.valueDeserializer(AvroSerdes.serdeConfig(
            TidelineInfraResource.infra().registry().url(), true)));
    consumer.subscribe(List.of(topic));
    return new Reader<>(consumer);
  }

  /** Accumulates records (across calls) until a condition over all of them holds (60 s at most). */
  static final class Reader<T> implements AutoCloseable {
    private final KafkaConsumer<String, T> consumer;
    private final List<ConsumerRecord<String, T>> all = new ArrayList<>();

    Reader(KafkaConsumer<String, T> consumer) {
      this.consumer = consumer;
    }

    List<ConsumerRecord<String, T>> until(Predicate<List<ConsumerRecord<String, T>>> done) {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!done.test(all)) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("condition not met within 60 s; read " + all.size() + " records");
        }
        consumer.poll(Duration.ofMillis(200)).forEach(all::add);
      }
      return List.copyOf(all);
    }

    @Override
    public void close() {
      consumer.close();
    }
  }
}
