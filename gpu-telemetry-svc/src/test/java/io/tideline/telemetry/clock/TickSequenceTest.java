package io.tideline.telemetry.clock;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TickSequenceTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");

  @Test
  void shouldStartWithTheLatestTickAtOrBeforeNowWithoutBackfilling() {
    TickSequence s = new TickSequence("lab", Duration.ofSeconds(10), ClockSource.WALL);

    assertThat(s.advanceTo(T0.plusMillis(7_300))).singleElement().satisfies(t -> {
      assertThat(t.getTime()).isEqualTo(T0);
      assertThat(t.getSequence()).isEqualTo(T0.toEpochMilli() / 10_000);
      assertThat(t.getIntervalMillis()).isEqualTo(10_000);
      assertThat(t.getCluster()).isEqualTo("lab");
      assertThat(t.getSource()).isEqualTo(ClockSource.WALL);
    });
  }

  @Test
  void shouldEmitEveryTickPassedInOrderWhenSimulatedTimeJumps() {
    TickSequence s = new TickSequence("lab", Duration.ofSeconds(10), ClockSource.SIMULATED);
    s.advanceTo(T0);

    var ticks = s.advanceTo(T0.plus(Duration.ofMinutes(1)));

    assertThat(ticks).extracting(ClockTick::getTime).containsExactly(T0.plusSeconds(10),
        T0.plusSeconds(20), T0.plusSeconds(30), T0.plusSeconds(40), T0.plusSeconds(50), T0.plusSeconds(60));
    assertThat(ticks).extracting(ClockTick::getSequence).isSorted().doesNotHaveDuplicates();
    assertThat(ticks.get(5).getSequence() - ticks.get(0).getSequence()).isEqualTo(5);
  }

  @Test
  void shouldEmitNothingWithinAnIntervalOrWhenTimeGoesBack() {
    TickSequence s = new TickSequence("lab", Duration.ofSeconds(10), ClockSource.WALL);
    s.advanceTo(T0.plusSeconds(20));

    assertThat(s.advanceTo(T0.plusSeconds(29))).isEmpty();
    assertThat(s.advanceTo(T0)).isEmpty();
    assertThat(s.advanceTo(T0.plusSeconds(30))).extracting(ClockTick::getTime).containsExactly(T0.plusSeconds(30));
  }

  @Test
  void shouldNumberTicksTheSameAfterARestart() {
    TickSequence before = new TickSequence("lab", Duration.ofSeconds(10), ClockSource.WALL);
    TickSequence after = new TickSequence("lab", Duration.ofSeconds(10), ClockSource.WALL);

    long last = before.advanceTo(T0.plusSeconds(40)).get(0).getSequence();

    assertThat(after.advanceTo(T0.plusSeconds(50)).get(0).getSequence()).isEqualTo(last + 1);
  }
}
