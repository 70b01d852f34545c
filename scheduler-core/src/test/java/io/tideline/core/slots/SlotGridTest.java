package io.tideline.core.slots;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class SlotGridTest {

  private final SlotGrid grid = new SlotGrid(Duration.ofMinutes(15), ZoneOffset.UTC);

  @Test
  void shouldCutTheDayIntoNinetySixQuarterHours() {
    assertThat(grid.slotsPerDay()).isEqualTo(96);
    assertThat(grid.slotIndex(Instant.parse("2026-11-02T08:14:59Z"))).isEqualTo(32);
    assertThat(grid.slotIndex(Instant.parse("2026-11-02T08:15:00Z"))).isEqualTo(33);
    assertThat(grid.slotEndOf(Instant.parse("2026-11-02T23:50:00Z")))
        .isEqualTo(Instant.parse("2026-11-03T00:00:00Z"));
  }

  @Test
  void shouldTellASlotBoundaryFromTheSecondAfter() {
    assertThat(grid.isSlotStart(Instant.parse("2026-11-02T08:15:00Z"))).isTrue();
    assertThat(grid.isSlotStart(Instant.parse("2026-11-02T08:15:01Z"))).isFalse();
  }

  @Test
  void shouldUseLocalTimeOfTheZone() {
    SlotGrid shanghai = new SlotGrid(Duration.ofMinutes(15), ZoneId.of("Asia/Shanghai"));

    Instant localMidnight = shanghai.slotStart(LocalDate.parse("2026-11-02"), 0);

    assertThat(localMidnight).isEqualTo(Instant.parse("2026-11-01T16:00:00Z"));
    assertThat(shanghai.date(localMidnight)).isEqualTo(LocalDate.parse("2026-11-02"));
  }

  @Test
  void shouldRejectASlotLengthThatDoesNotDivideTheDay() {
    assertThatThrownBy(() -> new SlotGrid(Duration.ofMinutes(7), ZoneOffset.UTC))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
