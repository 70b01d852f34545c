package io.tideline.core.pricing;

import io.tideline.core.slots.SlotClass;
import static io.tideline.core.pricing.PricingTestKit.DAY;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** Metering and cheapest-start invariants over random runs and random 15-minute slot maps. */
class MeteringInvariantsTest {

  final UsageMeter meter = PricingTestKit.meter();

  @Provide
  Arbitrary<SlotTimeline> slots() {
    return Arbitraries.longs().between(0, Long.MAX_VALUE).map(seed -> SlotTimeline.sampled(
        t -> SlotClass.values()[(int) Math.floorMod(
            (t.getEpochSecond() / 900) * 0x9E3779B97F4A7C15L ^ seed, 4L)],
        Duration.ofMinutes(15)));
  }

  @Provide
  Arbitrary<SlotTimeline> days() {
    return Arbitraries.of(DailySlotSchedule.EXAMPLE);
  }

  @Property(tries = 500, edgeCases = EdgeCasesMode.MIXIN)
  void meteredGpuSecondsEqualTheRunInterval(
      @ForAll @LongRange(min = 0, max = 7 * 86_400_000L) long startMillis,
      @ForAll @LongRange(min = 0, max = 3 * 86_400_000L) long lengthMillis,
      @ForAll @IntRange(min = 1, max = 64) int gpus,
      @ForAll("slots") SlotTimeline slots) {
    Instant from = DAY.plusMillis(startMillis);
    Instant to = from.plusMillis(lengthMillis);

    List<UsageRecord> r = meter.meter("t", "j", null, gpus, ChargeBasis.ON_DEMAND, from, to, slots);

    long seconds = Duration.between(from.truncatedTo(ChronoUnit.SECONDS),
        to.truncatedTo(ChronoUnit.SECONDS)).toSeconds();
    assertThat(r.stream().mapToDouble(UsageRecord::gpuSeconds).sum())
        .isEqualTo((double) gpus * seconds);
    for (int i = 0; i < r.size(); i++) {
      UsageRecord u = r.get(i);
      assertThat(u.to()).isAfter(u.from());
      assertThat(slots.slotAt(u.from())).isEqualTo(u.slotClass());
      assertThat(slots.slotAt(u.to().minusSeconds(1))).isEqualTo(u.slotClass());
      if (i > 0) {
        assertThat(u.from()).isEqualTo(r.get(i - 1).to());
        assertThat(u.slotClass()).isNotEqualTo(r.get(i - 1).slotClass());
      }
    }
  }

  @Property(tries = 300)
  void theCheapestStartCostsNoMoreThanAnyOtherStartInTheWindow(
      @ForAll @IntRange(min = 0, max = 86_400) int earliestOffset,
      @ForAll @IntRange(min = 60, max = 12 * 3600) int durationSeconds,
      @ForAll @IntRange(min = 0, max = 24 * 3600) int slack,
      @ForAll @IntRange(min = 0, max = 1000) int otherPermille,
      @ForAll("slots") SlotTimeline slots) {
    CheapestStart cheapest = new CheapestStart(PricingConfig.DEFAULTS);
    Instant earliest = DAY.plusSeconds(earliestOffset);
    Duration duration = Duration.ofSeconds(durationSeconds);
    Instant deadline = earliest.plus(duration).plusSeconds(slack);

    StartChoice c = cheapest.find("j", duration, earliest, deadline, 2, null,
        ChargeBasis.ON_DEMAND, slots);

    Instant other = earliest.plusSeconds((long) slack * otherPermille / 1000);
    BigDecimal otherCost =
        meter.exactCost(null, 2, ChargeBasis.ON_DEMAND, other, other.plus(duration), slots);
    BigDecimal chosenCost =
        meter.exactCost(null, 2, ChargeBasis.ON_DEMAND, c.start(), c.end(), slots);
    assertThat(c.feasible()).isTrue();
    assertThat(c.start()).isBetween(earliest, deadline.minus(duration));
    assertThat(chosenCost).isLessThanOrEqualTo(otherCost);
  }
}
