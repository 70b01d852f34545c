package io.tideline.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
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
    for (String tenant : DAY.tenants()) {
      assertThat(doc).contains("  - path: twin/" + tenant + "/ml/training\n    kind: QUEUE\n"
          + "    lane: TRAINING\n    guaranteedGpus: 0\n");
    }
  }

  @Test
  void shouldFloorTheOnlineQueueAtItsPeakWhenAskedTo() {
    String doc = document(1.0);

    assertThat(doc).contains("  - path: twin\n    kind: ORGANISATION\n    guaranteedGpus: 41\n");
  }

  private static String document(double floorShare) {
    return new World(Scenario.synthetic(DAY), "default", Duration.ofMinutes(5), floorShare)
        .quotaDocument();
  }
}
