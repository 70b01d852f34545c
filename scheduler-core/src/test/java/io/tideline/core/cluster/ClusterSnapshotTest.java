package io.tideline.core.cluster;

import static io.tideline.core.cluster.TestCluster.cluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tideline.core.model.JobRequest;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class ClusterSnapshotTest {

  static final Instant STARTS = Instant.parse("2026-11-02T14:15:00Z");

  @Test
  void shouldPackFractionalInstancesOnOneGpuUpToExactlyOne() {
    ClusterSnapshot snap = cluster().node("n1", "D1", "P1", "S1")
        .instance("a", "n1", 0, 0.1).instance("b", "n1", 0, 0.2).instance("c", "n1", 0, 0.7)
        .build();

    assertThat(snap.ledger("n1").used(0)).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(snap.ledger("n1").holders(0)).containsOnlyKeys("a", "b", "c");
    assertThat(snap.ledger("n1").idleGpus()).isEqualTo(7);
  }

  @Test
  void shouldRejectAnAllocationThatOverbooksAGpu() {
    ClusterSnapshot snap = cluster().node("n1", "D1", "P1", "S1").instance("a", "n1", 0, 0.75)
        .build();
    JobRequest b = TestJobs.instance("b", 0.5).build();

    assertThatThrownBy(() -> snap.withAllocation(
        new Allocation(b, List.of(new GpuAssignment("n1", 0, 0.5)))))
        .hasMessageContaining("n1/0 would hold 1.25 > 1.0");
  }

  @Test
  void shouldRejectUnknownNodesGpusAndReusedJobIds() {
    ClusterSnapshot snap = cluster().node("n1", "D1", "P1", "S1").running("a", "n1", 0).build();
    JobRequest x = TestJobs.training("x", 1).build();

    assertThatThrownBy(() -> snap.withAllocation(
        new Allocation(x, List.of(new GpuAssignment("n9", 0, 1.0)))))
        .hasMessageContaining("unknown node n9");
    assertThatThrownBy(() -> snap.withAllocation(
        new Allocation(x, List.of(new GpuAssignment("n1", 8, 1.0)))))
        .hasMessageContaining("has no GPU 8");
    assertThatThrownBy(() -> snap.withAllocation(new Allocation(
        TestJobs.training("a", 1).build(), List.of(new GpuAssignment("n1", 1, 1.0)))))
        .hasMessageContaining("already allocated");
  }

  @Test
  void shouldFreeReleasedJobsInANewVersionAndLeaveTheOriginalUntouched() {
    ClusterSnapshot snap = cluster().node("n1", "D1", "P1", "S1")
        .runningRange("a", "n1", 0, 4).instance("b", "n1", 4, 0.5).build();

    ClusterSnapshot after = snap.withoutJobs(Set.of("a", "b", "gone"));

    assertThat(after.version()).isEqualTo(snap.version() + 1);
    assertThat(after.ledger("n1").idleGpus()).isEqualTo(8);
    assertThat(after.allocations()).isEmpty();
    assertThat(snap.ledger("n1").idleGpus()).isEqualTo(3);
    assertThat(snap.allocations()).containsOnlyKeys("a", "b");
  }

  @Test
  void shouldLetOnlyPreemptibleWorkUseReservedGpusBeforeTheReservationStarts() {
    Reservation r = new Reservation("r1", "ranker", new TreeSet<>(Set.of(new GpuRef("n1", 0))),
        STARTS, null);
    JobRequest preemptible = TestJobs.training("t", 1).preemptible(true).build();
    JobRequest pinned = TestJobs.training("p", 1).preemptible(false).build();
    JobRequest own = TestJobs.instance("i", 0.5).service("ranker").build();
    JobRequest other = TestJobs.instance("o", 0.5).service("search").build();
    Instant justBefore = Instant.parse("2026-11-02T14:14:59Z");

    assertThat(r.permits(preemptible, justBefore)).isTrue();
    assertThat(r.permits(preemptible, STARTS)).isFalse();
    assertThat(r.permits(pinned, justBefore)).isFalse();
    assertThat(r.permits(own, justBefore)).isTrue();
    assertThat(r.permits(own, STARTS)).isTrue();
    assertThat(r.permits(other, STARTS)).isFalse();
  }

  @Test
  void shouldHoldNothingOnceReleasedEarly() {
    Instant release = Instant.parse("2026-11-02T16:50:00Z");
    Reservation r = new Reservation("r1", "ranker", new TreeSet<>(Set.of(new GpuRef("n1", 0))),
        STARTS, null).releasedAt(release);
    JobRequest pinned = TestJobs.training("p", 1).preemptible(false).build();

    assertThat(r.permits(pinned, release.minusSeconds(1))).isFalse();
    assertThat(r.permits(pinned, release)).isTrue();
  }

  @Test
  void shouldIndexReservationsAndCordonsPerNode() {
    ClusterSnapshot snap = cluster().node("n1", "D1", "P1", "S1").node("n2", "D1", "P1", "S1")
        .reserve("r1", "ranker", STARTS, "n2", 3, 5).build()
        .withCordoned(Set.of("n1"));
    int n1 = snap.topology().indexOf("n1");
    int n2 = snap.topology().indexOf("n2");

    assertThat(snap.hasReservations(n1)).isFalse();
    assertThat(snap.reservationsOn(n2, 3)).extracting(Reservation::id).containsExactly("r1");
    assertThat(snap.reservationsOn(n2, 4)).isEmpty();
    assertThat(snap.isCordoned(n1)).isTrue();
    assertThat(snap.withoutReservation("r1").hasReservations(n2)).isFalse();
  }

  @Test
  void shouldNeverChangeASnapshotWhenItsBuilderGoesOnAfterBuilding() {
    Topology topo = Topology.of(List.of(cluster().node("n1", "D1", "P1", "S1").build()
        .topology().node(0)));
    ClusterSnapshot.Builder b = ClusterSnapshot.builder(topo)
        .allocate(new Allocation(TestJobs.training("a", 1).build(),
            List.of(new GpuAssignment("n1", 0, 1.0))));
    ClusterSnapshot first = b.build();

    b.allocate(new Allocation(TestJobs.training("b", 1).build(),
        List.of(new GpuAssignment("n1", 1, 1.0)))).cordon("n1").release("a");
    ClusterSnapshot second = b.build();

    assertThat(first.allocations()).containsOnlyKeys("a");
    assertThat(first.ledger("n1").idleGpus()).isEqualTo(7);
    assertThat(first.cordoned()).isEmpty();
    assertThat(second.allocations()).containsOnlyKeys("b");
    assertThat(second.isCordoned(0)).isTrue();
  }

  @Test
  void shouldKeepTheParentsReservationIndexWhenOnlyAllocationsChange() {
    ClusterSnapshot snap = cluster().node("n1", "D1", "P1", "S1")
        .reserve("r1", "ranker", STARTS, "n1", 3, 5).build();

    ClusterSnapshot after = snap.withAllocation(new Allocation(
        TestJobs.training("x", 1).build(), List.of(new GpuAssignment("n1", 0, 1.0))))
        .atVersion(snap.version() + 5);

    assertThat(after.version()).isEqualTo(snap.version() + 5);
    assertThat(after.reservationsOn(0, 3)).extracting(Reservation::id).containsExactly("r1");
    assertThat(after.reservationsOn(0, 0)).isEmpty();
    assertThat(after.allocations()).containsOnlyKeys("x");
    assertThat(snap.allocations()).isEmpty();
  }
}
