package io.tideline.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.GpuSample;
import io.tideline.events.GpuSampleBatch;
import io.tideline.platform.telemetry.SampleBatches;
import io.tideline.events.SampleState;
import io.tideline.platform.topics.TopicCatalogue;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class WorldHistoryTest {

  private static final Instant START = Instant.parse("2026-11-30T00:00:00Z");

  private static List<World.Timed> beforeFirstTick(SimConfig config) {
    World world = Twins.world(Scenario.synthetic(config));
    world.start(START, START.plus(Duration.ofHours(1)));
    return world.before(START.plusMillis(1));
  }

  private static List<GpuSample> telemetryBefore(List<World.Timed> records, Instant t) {
    return records.stream().filter(r -> r.at().isBefore(t))
        .filter(r -> r.record().topic().equals(TopicCatalogue.GPU_TELEMETRY_BATCHES))
        .flatMap(r -> SampleBatches.samples((GpuSampleBatch) r.record().value()).stream())
        .toList();
  }

  @Test
  void shouldTellTheForecasterTwoWeeksOfWhatTheServicesHeldBeforeTheFirstTick() {
    SimConfig config = SimConfig.DEFAULTS.with(42, 1, 16).withStart(START).withHistory(14);

    List<World.Timed> records = beforeFirstTick(config);
    List<GpuSample> history = telemetryBefore(records, START);

    assertThat(history).isNotEmpty();
    assertThat(history).allSatisfy(s -> {
      assertThat(s.getState()).isEqualTo(SampleState.OK);
      assertThat(s.getServiceId()).isNotNull();
      assertThat(s.getJobId()).as("quota bills jobs: history holds none").isNull();
      assertThat(s.getSampledAt()).isBetween(START.minus(Duration.ofDays(14)), START);
    });
    // one sample per demand step per GPU held, every step of the 14 days
    TreeMap<Instant, Long> perStep = history.stream()
        .collect(Collectors.groupingBy(GpuSample::getSampledAt, TreeMap::new,
            Collectors.counting()));
    assertThat(perStep).hasSize(14 * 24 * 6);
    assertThat(perStep.firstKey()).isEqualTo(START.minus(Duration.ofDays(14)));
    Set<String> services = history.stream().map(GpuSample::getServiceId)
        .collect(Collectors.toSet());
    assertThat(services).containsExactlyInAnyOrderElementsOf(
        config.services().stream().map(OnlineService::id).toList());
    // a GPU serves one service at a time: no GPU twice in one step
    history.stream().collect(Collectors.groupingBy(GpuSample::getSampledAt))
        .forEach((at, step) -> assertThat(step.stream().map(GpuSample::getGpuId).distinct()
            .count()).isEqualTo(step.size()));
  }

  @Test
  void shouldFollowTheTideInItsHistory() {
    SimConfig config = SimConfig.DEFAULTS.with(42, 1, 16).withStart(START).withHistory(14);

    List<GpuSample> history = telemetryBefore(beforeFirstTick(config), START);

    Map<Integer, Long> byHour = history.stream().collect(Collectors.groupingBy(
        s -> s.getSampledAt().atZone(config.zone()).getHour(), Collectors.counting()));
    long trough = byHour.values().stream().mapToLong(Long::longValue).min().orElseThrow();
    long peak = byHour.values().stream().mapToLong(Long::longValue).max().orElseThrow();
    assertThat((double) peak).as("the day's peak hour holds a quarter more GPUs than its trough")
        .isGreaterThan(1.25 * trough);
  }

  @Test
  void shouldTellNothingBeforeTheStartWithoutHistory() {
    SimConfig config = SimConfig.DEFAULTS.with(42, 1, 16).withStart(START);

    assertThat(telemetryBefore(beforeFirstTick(config), START)).isEmpty();
  }
}
