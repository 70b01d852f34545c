package io.tideline.core.pricing;

import io.tideline.core.slots.SlotClass;
import static io.tideline.core.pricing.PricingTestKit.at;
import static io.tideline.core.pricing.PricingTestKit.meter;
import static io.tideline.core.pricing.PricingTestKit.nextDay;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UsageMeterTest {

  final SlotTimeline day = DailySlotSchedule.EXAMPLE;

  @Test
  void shouldSplitARunAtTheMorningPeakBoundaryAndPriceEachPiece() {
    List<UsageRecord> r = meter().meter("search", "job-1", "H100", 8, ChargeBasis.ON_DEMAND,
        at("05:30:00"), at("06:30:00"), day);

    assertThat(r).containsExactly(
        new UsageRecord("search", "job-1", at("05:30:00"), at("06:00:00"), 14_400, "H100",
            SlotClass.DEEP_TROUGH, ChargeBasis.ON_DEMAND, new BigDecimal("0.2"),
            new BigDecimal("0.800000")),
        new UsageRecord("search", "job-1", at("06:00:00"), at("06:30:00"), 14_400, "H100",
            SlotClass.PEAK, ChargeBasis.ON_DEMAND, new BigDecimal("1.2"),
            new BigDecimal("4.800000")));
    assertThat(UsageMeter.total(r)).isEqualByComparingTo("5.6");
  }

  @Test
  void shouldCrossMidnightThroughEveningPeakTroughAndDeepTrough() {
    List<UsageRecord> r = meter().meter("ads", "j", null, 1, ChargeBasis.ON_DEMAND,
        at("21:00:00"), nextDay("01:00:00"), day);

    assertThat(r).extracting(UsageRecord::slotClass)
        .containsExactly(SlotClass.PEAK, SlotClass.TROUGH, SlotClass.DEEP_TROUGH);
    assertThat(r).extracting(UsageRecord::gpuSeconds).containsExactly(3600.0, 7200.0, 3600.0);
    assertThat(UsageMeter.total(r)).isEqualByComparingTo("2.0"); // 1.2 + 2 × 0.3 + 0.2
  }

  @Test
  void shouldDiscountReservedUsageAndChargeABurstPremium() {
    Instant from = at("07:00:00");
    Instant to = at("08:00:00");

    assertThat(meter().meter("s", "r", "H100", 1, ChargeBasis.RESERVED, from, to, day))
        .singleElement().satisfies(u -> {
          assertThat(u.pricePerGpuHour()).isEqualByComparingTo("0.84");
          assertThat(u.amount()).isEqualByComparingTo("0.84");
        });
    assertThat(meter().meter("s", "b", "H100", 1, ChargeBasis.BURST, from, to, day))
        .singleElement().extracting(UsageRecord::amount).isEqualTo(new BigDecimal("1.500000"));
  }

  @Test
  void shouldPriceAModelByItsOwnRowAndFallBackToTheDefaultRow() {
    PricingConfig cfg = new PricingConfig(PriceTable.DEFAULTS.withModel("A10",
        Map.of(SlotClass.PEAK, 0.5)), 0.3, 0.25);
    UsageMeter m = new UsageMeter(cfg);

    assertThat(m.price("A10", SlotClass.PEAK, ChargeBasis.ON_DEMAND)).isEqualByComparingTo("0.5");
    assertThat(m.price("A10", SlotClass.TROUGH, ChargeBasis.ON_DEMAND))
        .isEqualByComparingTo("0.3");
    assertThat(m.price("H100", SlotClass.PEAK, ChargeBasis.ON_DEMAND)).isEqualByComparingTo("1.2");
  }

  @Test
  void shouldMeterPerSecondAndPriceAFractionalInstanceByItsShare() {
    List<UsageRecord> r = meter().meter("s", "inf", null, 0.25, ChargeBasis.ON_DEMAND,
        Instant.parse("2026-11-02T22:00:00.700Z"), Instant.parse("2026-11-02T23:00:00.300Z"), day);

    assertThat(r).singleElement().satisfies(u -> {
      assertThat(u.from()).isEqualTo(at("22:00:00"));
      assertThat(u.to()).isEqualTo(at("23:00:00"));
      assertThat(u.gpuSeconds()).isEqualTo(900.0);
      assertThat(u.amount()).isEqualByComparingTo("0.075");
    });
    assertThat(meter().meter("s", "x", null, 1, ChargeBasis.ON_DEMAND,
        Instant.parse("2026-11-02T22:00:00.100Z"), Instant.parse("2026-11-02T22:00:00.900Z"), day))
        .isEmpty();
  }

  @Test
  void shouldMergeBoundariesThatDoNotChangeTheClass() {
    SlotTimeline alwaysTrough = SlotTimeline.sampled(t -> SlotClass.TROUGH, Duration.ofMinutes(15));

    assertThat(meter().meter("s", "j", null, 2, ChargeBasis.ON_DEMAND, at("01:07:00"),
        at("05:07:00"), alwaysTrough)).singleElement()
        .extracting(UsageRecord::gpuSeconds).isEqualTo(28_800.0);
  }

  @Test
  void shouldReadADailyScheduleInItsOwnTimeZone() {
    DailySlotSchedule shanghai = new DailySlotSchedule(ZoneId.of("Asia/Shanghai"),
        Map.of(LocalTime.MIDNIGHT, SlotClass.DEEP_TROUGH, LocalTime.of(8, 0), SlotClass.PEAK));

    assertThat(shanghai.slotAt(Instant.parse("2026-11-02T16:00:00Z")))
        .isEqualTo(SlotClass.DEEP_TROUGH); // 00:00 in Shanghai
    assertThat(shanghai.slotAt(Instant.parse("2026-11-02T15:59:59Z"))).isEqualTo(SlotClass.PEAK);
    assertThat(shanghai.nextBoundaryAfter(Instant.parse("2026-11-02T16:00:00Z")))
        .isEqualTo(Instant.parse("2026-11-03T00:00:00Z"));
  }
}
