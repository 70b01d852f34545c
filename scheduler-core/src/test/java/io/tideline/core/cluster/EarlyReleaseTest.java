package io.tideline.core.cluster;

import static io.tideline.core.cluster.TestCluster.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.placement.PlacementConfig;
import io.tideline.core.placement.Placer;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** F3 early release: which reserved GPUs a count-only release gives back, and to whom. */
class EarlyReleaseTest {

  static final Instant T0 = Instant.parse("2026-11-02T14:00:00Z");

  ClusterSnapshot reserved() {
    // search-api holds n1 GPUs 0–3 from T0; its instance runs on GPU 0; chat holds GPU 7.
    return cluster().node("n1", "D1", "P1", "S1")
        .instance("search-1", "n1", 0, 1.0)
        .reserve("r-search", "search-api", T0, "n1", 0, 1, 2, 3)
        .reserve("r-chat", "chat", T0, "n1", 7)
        .build();
  }

  @Test
  void shouldGiveBackUnusedGpusBeforeTheOnesTheServiceUses() {
    EarlyRelease.Result r = EarlyRelease.release(reserved(), "search-api", 3, T0.plusSeconds(60));

    assertThat(r.released()).containsExactly(new GpuRef("n1", 1), new GpuRef("n1", 2),
        new GpuRef("n1", 3));
    assertThat(r.changed()).singleElement().satisfies(x -> {
      assertThat(x.id()).isEqualTo("r-search");
      assertThat(x.gpus()).containsExactly(new GpuRef("n1", 0));
    });
  }

  @Test
  void shouldDropAFullyReleasedReservationAndNeverTouchAnotherServices() {
    EarlyRelease.Result r = EarlyRelease.release(reserved(), "search-api", 10, T0.plusSeconds(60));

    assertThat(r.released()).hasSize(4).last().isEqualTo(new GpuRef("n1", 0));
    assertThat(r.changed()).singleElement().satisfies(x -> assertThat(x.gpus()).isEmpty());
  }

  @Test
  void shouldLetNonPreemptibleWorkUseReleasedGpusOnceTheReservationStarted() {
    ClusterSnapshot snap = reserved();
    Placer placer = new Placer(PlacementConfig.DEFAULTS);
    var job = TestJobs.training("steady", 6).workers(1).preemptible(false).build();
    assertThat(placer.decide(T0.plusSeconds(60), snap, job).placed()).isFalse();

    EarlyRelease.Result r = EarlyRelease.release(snap, "search-api", 3, T0.plusSeconds(60));
    ClusterSnapshot after = snap.withoutReservation("r-search")
        .withReservation(r.changed().get(0));

    assertThat(placer.decide(T0.plusSeconds(60), after, job).placed()).isTrue();
  }
}
