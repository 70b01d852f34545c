package io.tideline.core.pricing;

import io.tideline.core.trace.TraceEntry;
import static io.tideline.core.pricing.PricingTestKit.at;
import static io.tideline.core.pricing.PricingTestKit.nextDay;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class CheapestStartTest {

  final CheapestStart cheapest = new CheapestStart(PricingConfig.DEFAULTS);
  final SlotTimeline day = DailySlotSchedule.EXAMPLE;

  @Test
  void shouldMoveANonUrgentJobIntoTheDeepTrough() {
    StartChoice c = cheapest.find("train-1", Duration.ofHours(4), at("14:00:00"),
        nextDay("08:00:00"), 8, "H100", ChargeBasis.ON_DEMAND, day);

    assertThat(c.feasible()).isTrue();
    assertThat(c.start()).isEqualTo(nextDay("00:00:00"));
    assertThat(c.end()).isEqualTo(nextDay("04:00:00"));
    assertThat(c.cost()).isEqualByComparingTo("6.4"); // 8 GPUs × 4 h × 0.2
    assertThat(c.costAtEarliest()).isEqualByComparingTo("19.2"); // 8 × 4 × 0.6 (flat)
    assertThat(c.saving()).isEqualByComparingTo("12.8");
    assertThat(c.trace()).singleElement().extracting(TraceEntry::rule)
        .isEqualTo("B2 cheapest start");
  }

  @Test
  void shouldStartAtOnceWhenTheDeadlineLeavesNoCheaperSlot() {
    // 14:00 → 18:00 is all flat; any later start runs into the evening peak.
    StartChoice c = cheapest.find("j", Duration.ofHours(4), at("14:00:00"), at("19:00:00"), 1,
        null, ChargeBasis.ON_DEMAND, day);

    assertThat(c.start()).isEqualTo(at("14:00:00"));
    assertThat(c.saving()).isZero();
  }

  @Test
  void shouldPreferTheEarliestOfEquallyCheapStarts() {
    StartChoice c = cheapest.find("j", Duration.ofHours(2), at("00:30:00"), at("06:00:00"), 1,
        null, ChargeBasis.ON_DEMAND, day);

    assertThat(c.start()).isEqualTo(at("00:30:00"));
  }

  @Test
  void shouldStraddleABoundaryWhenOnlyPartOfTheRunCanBeCheap() {
    // Earliest 20:00, 3 h, deadline 23:30: best is 20:30 → 23:30 (1.5 h peak, 1.5 h trough).
    StartChoice c = cheapest.find("j", Duration.ofHours(3), at("20:00:00"), at("23:30:00"), 1,
        null, ChargeBasis.ON_DEMAND, day);

    assertThat(c.start()).isEqualTo(at("20:30:00"));
    assertThat(c.cost()).isEqualByComparingTo("2.25");
  }

  @Test
  void shouldReportAnImpossibleDeadline() {
    StartChoice c = cheapest.find("j", Duration.ofHours(4), at("14:00:00"), at("17:59:59"), 1,
        null, ChargeBasis.ON_DEMAND, day);

    assertThat(c.feasible()).isFalse();
    assertThat(c.start()).isNull();
    assertThat(c.trace()).singleElement().extracting(TraceEntry::outcome).isEqualTo("infeasible");
  }
}
