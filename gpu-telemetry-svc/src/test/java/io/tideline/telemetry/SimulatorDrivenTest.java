package io.tideline.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.GpuSample;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.telemetry.clock.SimulatedClock;
import io.tideline.telemetry.collect.Collector;
import io.tideline.testkit.TidelineInfraResource;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * The simulator's interfaces against a real broker: pushed samples reach gpu.telemetry in a round
 * the simulator triggers at simulated time, and cluster.clock follows simulated time.
 */
@QuarkusTest
@QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)
@QuarkusTestResource(value = SimulatorModeResource.class, restrictToAnnotatedClass = true)
class SimulatorDrivenTest {

  static final Instant SIM = Instant.parse("2026-07-01T00:00:00Z");

  @Inject Collector collector;
  @Inject SimulatedClock clock;

  @Test
  void shouldPublishPushedSimulatorSamplesAtSimulatedTime() {
    var sim = collector.simulator().orElseThrow();
    sim.push(sample("sim-gpu-1", 0, 81.0));
    sim.push(sample("sim-gpu-2", 1, 12.0));

    List<GpuSample> published = collector.round(SIM.plusSeconds(30));

    assertThat(published).extracting(GpuSample::getGpuId).containsExactly("sim-gpu-1", "sim-gpu-2");
    try (var c = TelemetryEndToEndTest.consumer(TopicCatalogue.GPU_TELEMETRY, GpuSample.class, true)) {
      List<ConsumerRecord<String, GpuSample>> seen = c.until(all -> all.size() >= 2);
      assertThat(seen).extracting(ConsumerRecord::key).containsExactlyInAnyOrder("sim-gpu-1", "sim-gpu-2");
      assertThat(seen).allSatisfy(r -> assertThat(r.value().getSource()).isEqualTo(SampleSource.SIMULATOR));
    }
  }

  @Test
  void shouldRefuseASampleThatDoesNotComeFromTheSimulator() {
    GpuSample dcgm = sample("x", 0, 1.0);
    dcgm.setSource(SampleSource.DCGM);

    assertThatThrownBy(() -> collector.simulator().orElseThrow().push(dcgm))
        .hasMessageContaining("must have source SIMULATOR");
  }

  @Test
  void shouldTickInSimulatedTime() {
    clock.advanceTo(SIM);
    List<ClockTick> minute = clock.advanceTo(SIM.plus(Duration.ofMinutes(1)));

    assertThat(minute).hasSize(6).allSatisfy(t -> assertThat(t.getSource()).isEqualTo(ClockSource.SIMULATED));
    try (var c = TelemetryEndToEndTest.consumer(TopicCatalogue.CLUSTER_CLOCK, ClockTick.class, true)) {
      List<ConsumerRecord<String, ClockTick>> ticks = c.until(all -> all.size() >= 7);
      assertThat(ticks).extracting(r -> r.value().getTime()).containsExactly(SIM, SIM.plusSeconds(10),
          SIM.plusSeconds(20), SIM.plusSeconds(30), SIM.plusSeconds(40), SIM.plusSeconds(50), SIM.plusSeconds(60));
    }
  }

  static GpuSample sample(String id, int index, double util) {
    return GpuSample.newBuilder().setGpuId(id).setCluster("default").setNodeId("sim-node-1")
        .setGpuIndex(index).setModel("NVIDIA H100 80GB HBM3").setSampledAt(SIM)
        .setState(SampleState.OK).setUtilizationPct(util).setSource(SampleSource.SIMULATOR).build();
  }
}
