package io.tideline.core.preemption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tideline.core.model.CheckpointProfile;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class MigrationCostModelTest {

  static final Instant NOW = Instant.parse("2026-11-02T14:00:00Z");
  final MigrationCostModel model = new MigrationCostModel(PreemptionConfig.DEFAULTS);

  @Test
  void shouldWriteTheWorkedExample7bCheckpointIn40SecondsWithOneWriter() {
    assertThat(model.writeSeconds(new CheckpointProfile(80, 2, 1, 600))).isEqualTo(40.0);
  }

  @Test
  void shouldWriteTheWorkedExampleIn12SecondsWithEightShards() {
    // 40 s × (20% serial + 80% / 8 shards) = 40 × 0.3
    assertThat(model.writeSeconds(new CheckpointProfile(80, 2, 8, 600)))
        .isCloseTo(12.0, within(1e-9));
  }

  @Test
  void shouldPriceTheWorkedExampleTermByTerm() {
    RunningJob job = Jobs.training("t-7b").gpus(8).nodes(1)
        .startedAt("2026-11-02T12:00:00Z").lastCheckpointAt("2026-11-02T13:55:00Z").build();

    MigrationCost cost = model.cost(job, NOW);

    assertThat(cost.writeSeconds()).isEqualTo(40.0);
    assertThat(cost.restoreSeconds()).isCloseTo(52.0, within(1e-9));
    assertThat(cost.commRebuildSeconds()).isEqualTo(20.0);
    assertThat(cost.lostProgressSeconds()).isEqualTo(300.0);
    assertThat(cost.cacheWarmupSeconds()).isZero();
    assertThat(cost.wallSeconds()).isCloseTo(412.0, within(1e-9));
    assertThat(cost.gpuHours()).isCloseTo(412.0 * 8 / 3600, within(1e-12));
  }

  @Test
  void shouldPriceTheShardedWorkedExampleWithRestoreAt1Point3TimesTheWrite() {
    RunningJob job = Jobs.training("t-7b-sharded").gpus(8).nodes(1)
        .checkpoint(new CheckpointProfile(80, 2, 8, 600))
        .lastCheckpointAt("2026-11-02T13:55:00Z").build();

    MigrationCost cost = model.cost(job, NOW);

    assertThat(cost.writeSeconds()).isCloseTo(12.0, within(1e-9));
    assertThat(cost.restoreSeconds()).isCloseTo(15.6, within(1e-9));
    assertThat(cost.gpuHours()).isCloseTo((12 + 15.6 + 20 + 300) * 8 / 3600, within(1e-12));
  }

  @Test
  void shouldGrowCommRebuildWithNodesFrom20To50Seconds() {
    assertThat(model.commRebuildSeconds(8, 1)).isEqualTo(20.0);
    assertThat(model.commRebuildSeconds(16, 2)).isEqualTo(22.0);
    assertThat(model.commRebuildSeconds(120, 15)).isEqualTo(48.0);
    assertThat(model.commRebuildSeconds(128, 16)).isEqualTo(50.0);
    assertThat(model.commRebuildSeconds(512, 64)).isEqualTo(50.0);
  }

  @Test
  void shouldChargeNoCommRebuildToASingleGpuJob() {
    assertThat(model.commRebuildSeconds(1, 1)).isZero();
    assertThat(model.commRebuildSeconds(0.25, 1)).isZero();
  }

  @Test
  void shouldMakeAJobThatJustCheckpointedCheaper() {
    RunningJob justWrote = Jobs.training("fresh").lastCheckpointAt("2026-11-02T13:59:00Z").build();
    RunningJob stale = Jobs.training("stale").lastCheckpointAt("2026-11-02T13:51:00Z").build();

    assertThat(model.cost(justWrote, NOW).lostProgressSeconds()).isEqualTo(60.0);
    assertThat(model.cost(stale, NOW).lostProgressSeconds()).isEqualTo(540.0);
    assertThat(model.cost(justWrote, NOW).gpuHours()).isLessThan(model.cost(stale, NOW).gpuHours());
  }

  @Test
  void shouldCountLostProgressFromTheRestartWhenTheLastCheckpointIsOlder() {
    RunningJob restarted = Jobs.training("restarted").startedAt("2026-11-02T13:40:00Z")
        .lastCheckpointAt("2026-11-02T13:00:00Z").build();
    RunningJob neverCheckpointed = Jobs.training("never").startedAt("2026-11-02T13:30:00Z")
        .build();

    assertThat(model.cost(restarted, NOW).lostProgressSeconds()).isEqualTo(1200.0);
    assertThat(model.cost(neverCheckpointed, NOW).lostProgressSeconds()).isEqualTo(1800.0);
  }

  @Test
  void shouldChargeCacheWarmUpOnlyWhenTheCacheIsWarm() {
    RunningJob warm = Jobs.training("warm").cacheWarm(500).build();
    RunningJob cold = Jobs.training("cold").cacheCold(500).build();

    assertThat(model.cost(warm, NOW).cacheWarmupSeconds()).isEqualTo(250.0);
    assertThat(model.cost(cold, NOW).cacheWarmupSeconds()).isZero();
    assertThat(model.cost(cold, NOW).gpuHours()).isLessThan(model.cost(warm, NOW).gpuHours());
  }

  @Test
  void shouldPriceAJobWithoutCheckpointsAsEverythingSinceItsStartLost() {
    RunningJob batch = Jobs.batchInference("b-1").gpus(1).startedAt("2026-11-02T13:00:00Z")
        .build();

    MigrationCost cost = model.cost(batch, NOW);

    assertThat(cost.writeSeconds()).isZero();
    assertThat(cost.restoreSeconds()).isZero();
    assertThat(cost.gpuHours()).isEqualTo(1.0);
  }

  @Test
  void shouldScaleTheCostWithFractionalGpusHeld() {
    RunningJob quarter = Jobs.batchInference("b-q").gpus(0.25).startedAt("2026-11-02T13:00:00Z")
        .build();

    assertThat(model.cost(quarter, NOW).gpuHours()).isEqualTo(0.25);
  }
}
