package io.tideline.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tideline.core.cluster.GpuRef;
import io.tideline.core.cluster.Reservation;
import io.tideline.core.cluster.state.LedgerChange;
import java.time.Instant;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Scenarios of {@link OverIssueMeter}: F3 over-issue counted from the applied ledger. */
class OverIssueMeterTest {

  private static final String OVER = "chat/2026-11-10T09:00:00Z" + Reservation.OVER_ISSUE_SUFFIX;

  private static Instant at(String time) {
    return Instant.parse("2026-11-10T" + time + "Z");
  }

  private static Reservation reservation(String id, int gpus, String from, String until) {
    TreeSet<GpuRef> refs = new TreeSet<>();
    for (int g = 0; g < gpus; g++) {
      refs.add(new GpuRef("node-" + g / 8, g % 8));
    }
    return new Reservation(id, "chat", refs, at(from), at(until));
  }

  private static LedgerChange set(String at, Reservation r) {
    return new LedgerChange.ReservationSet(1, at(at), r);
  }

  @Test
  void shouldCountAnOverIssueAndTheGpuHoursItHeldUntilDropped() {
    OverIssueMeter meter = new OverIssueMeter();

    meter.apply(set("09:02:00", reservation(OVER, 4, "09:02:00", "09:15:00")));
    meter.apply(new LedgerChange.ReservationDropped(2, at("09:12:00"), OVER));

    assertThat(meter.overIssues()).isEqualTo(1);
    assertThat(meter.gpuHours(at("12:00:00"))).isCloseTo(4 * 10 / 60.0, within(1e-9));
  }

  @Test
  void shouldStopCountingAtTheEndOfTheOverIssueEvenIfTheDropComesLater() {
    OverIssueMeter meter = new OverIssueMeter();

    meter.apply(set("09:02:00", reservation(OVER, 3, "09:02:00", "09:15:00")));
    meter.apply(new LedgerChange.ReservationDropped(2, at("09:20:00"), OVER));

    assertThat(meter.gpuHours(at("12:00:00"))).isCloseTo(3 * 13 / 60.0, within(1e-9));
  }

  @Test
  void shouldTreatAnEarlyReleaseOfSomeGpusAsTheSameOverIssue() {
    OverIssueMeter meter = new OverIssueMeter();

    meter.apply(set("09:02:00", reservation(OVER, 4, "09:02:00", "09:15:00")));
    meter.apply(set("09:08:00", reservation(OVER, 1, "09:02:00", "09:15:00")));

    assertThat(meter.overIssues()).isEqualTo(1);
    // 4 GPUs for 6 minutes, then 1 until its end at 09:15 (still held when measured)
    assertThat(meter.gpuHours(at("10:00:00"))).isCloseTo((4 * 6 + 7) / 60.0, within(1e-9));
  }

  @Test
  void shouldCountANewCommandForTheSameSlotAsAnotherOverIssue() {
    OverIssueMeter meter = new OverIssueMeter();

    meter.apply(set("09:02:00", reservation(OVER, 2, "09:02:00", "09:15:00")));
    meter.apply(set("09:05:00", reservation(OVER, 3, "09:05:00", "09:15:00")));

    assertThat(meter.overIssues()).isEqualTo(2);
    assertThat(meter.gpuHours(at("09:10:00"))).isCloseTo((2 * 3 + 3 * 5) / 60.0, within(1e-9));
  }

  @Test
  void shouldIgnoreForecastReservationsAndOverIssuesThatGotNoGpu() {
    OverIssueMeter meter = new OverIssueMeter();

    meter.apply(set("08:45:00", reservation("chat/2026-11-10T09:00:00Z", 6, "09:00:00",
        "09:15:00")));
    meter.apply(set("09:02:00", reservation(OVER, 0, "09:02:00", "09:15:00")));

    assertThat(meter.overIssues()).isZero();
    assertThat(meter.gpuHours(at("10:00:00"))).isZero();
  }
}
