package io.tideline.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The quota definition the twin's world publishes for its tenants (Q1, Q2, W4 grants). */
class WorldQuotaDocumentTest {

  private static final SimConfig DAY = SimConfig.DEFAULTS.with(42L, 1, 16)
      .withStart(Instant.parse("2026-11-28T00:00:00Z"));

  @Test
  void shouldFloorTheOnlineQueueAtSeventyPercentOfTheServicesPeaksByDefault() {
    String doc = document(DAY.onlineGuaranteeFraction());

    // 0.7 × 40.05 GPUs of summed service peaks = 28.04 → 29 whole GPUs
    assertThat(doc).contains("fleetGpus: 128")
        .contains("  - path: twin/online/online/inference\n    kind: QUEUE\n    lane: INFERENCE\n"
            + "    guaranteedGpus: 29\n")
        .contains("  - path: twin/online\n    kind: BUSINESS_LINE\n    guaranteedGpus: 29\n"
            + "    preemptionGrants: [ONLINE_INFERENCE]\n");
    World w = world(DAY, DAY.onlineGuaranteeFraction());
    Map<String, Long> offline = w.offlineFloors(29);
    for (String tenant : DAY.tenants()) {
      assertThat(doc).contains("  - path: twin/" + tenant + "/ml/training\n    kind: QUEUE\n"
          + "    lane: TRAINING\n    guaranteedGpus: " + offline.getOrDefault(tenant, 0L) + "\n");
    }
    long offlineTotal = offline.values().stream().mapToLong(Long::longValue).sum();
    assertThat(offlineTotal).as("capped at 40% of the 99 GPUs online leaves")
        .isPositive().isLessThanOrEqualTo((long) (0.4 * 99));
    assertThat(doc).contains("  - path: twin\n    kind: ORGANISATION\n    guaranteedGpus: "
        + (29 + offlineTotal) + "\n");
  }

  @Test
  void shouldFloorEachTenantsTrainingAtItsLargestKeyJobWhenTheFleetHasRoom() {
    SimConfig big = SimConfig.DEFAULTS.with(42L, 1, 250);
    World w = world(big, big.onlineGuaranteeFraction());
    Scenario s = w.scenario();

    Map<String, Long> offline = w.offlineFloors(0);

    for (String tenant : big.tenants()) {
      long largestKeyJob = s.jobs().stream().filter(j -> j.tenant().equals(tenant)
          && !j.preemptible() && j.workloadClass() != io.tideline.core.model.WorkloadClass
              .BATCH_INFERENCE).mapToLong(JobSpec::gpus).max().orElse(0);
      assertThat(offline.getOrDefault(tenant, 0L)).as(tenant).isEqualTo(largestKeyJob)
          .isPositive();
    }
  }

  @Test
  void shouldFloorTheOnlineQueueAtItsPeakWhenAskedTo() {
    String doc = document(1.0);

    assertThat(doc).contains("  - path: twin/online\n    kind: BUSINESS_LINE\n"
        + "    guaranteedGpus: 41\n");
  }

  private static String document(double floorShare) {
    return world(DAY, floorShare).quotaDocument();
  }

  private static World world(SimConfig c, double floorShare) {
    return new World(Scenario.synthetic(c), "default", Duration.ofMinutes(5), floorShare);
  }
}
