package io.tideline.core.pricing;

import static io.tideline.core.pbt.PropertyFailures.assertCatches;
import static io.tideline.core.pricing.PricingTestKit.DAY;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.pbt.Gens;
import io.tideline.core.pbt.Seed;
import io.tideline.core.pbt.SeededProperty;
import io.tideline.core.slots.SlotClass;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Metering and cheapest-start invariants over random runs and random 15-minute slot maps. Each is
 * also run against a deliberately broken meter or start finder, which it must catch.
 */
class MeteringInvariantsTest {

  final UsageMeter meter = PricingTestKit.meter();

  /** A random 15-minute slot map: the class of each slot a hash of its index and the seed. */
  record RandomSlots(long seed) implements SlotTimeline {
    private static final Duration STEP = Duration.ofMinutes(15);

    private SlotTimeline timeline() {
      return SlotTimeline.sampled(t -> SlotClass.values()[(int) Math.floorMod(
          (t.getEpochSecond() / 900) * 0x9E3779B97F4A7C15L ^ seed, 4L)], STEP);
    }

    @Override
    public SlotClass slotAt(Instant t) {
      return timeline().slotAt(t);
    }

    @Override
    public Instant nextBoundaryAfter(Instant t) {
      return timeline().nextBoundaryAfter(t);
    }
  }

  /**
   * Random slot maps, and in {@link Gens#EDGE_PERCENT}% of draws requirement F4's example day
   * ({@link DailySlotSchedule#EXAMPLE}, whose boundaries are not on a fixed step).
   */
  static Gen<SlotTimeline> slots() {
    Gen<SlotTimeline> random = Gens.longs(0, Long.MAX_VALUE).map(RandomSlots::new);
    return Gens.withEdges(random, List.of(DailySlotSchedule.EXAMPLE));
  }

  /** The metering under test: the real meter or a broken fixture. */
  interface Meter {
    List<UsageRecord> meter(int gpus, Instant from, Instant to, SlotTimeline slots);
  }

  record Run(long startMillis, long lengthMillis, int gpus, SlotTimeline slots) {}

  static Gen<Run> runs() {
    Gen<Long> starts = Gens.longs(0, 7 * 86_400_000L);
    Gen<Long> lengths = Gens.longs(0, 3 * 86_400_000L);
    Gen<Integer> gpus = Gens.ints(1, 64);
    Gen<SlotTimeline> slots = slots();
    return in -> new Run(starts.generate(in), lengths.generate(in), gpus.generate(in),
        slots.generate(in));
  }

  @SeededProperty
  void meteredGpuSecondsEqualTheRunInterval(Seed seed) {
    metersTheWholeRunInItsSlots(seed, (gpus, from, to, slots) ->
        meter.meter("t", "j", null, gpus, ChargeBasis.ON_DEMAND, from, to, slots));
  }

  void metersTheWholeRunInItsSlots(Seed seed, Meter meter) {
    seed.qt(500).forAll(runs()).checkAssert(run -> {
      Instant from = DAY.plusMillis(run.startMillis());
      Instant to = from.plusMillis(run.lengthMillis());
      SlotTimeline slots = run.slots();

      List<UsageRecord> r = meter.meter(run.gpus(), from, to, slots);

      long seconds = Duration.between(from.truncatedTo(ChronoUnit.SECONDS),
          to.truncatedTo(ChronoUnit.SECONDS)).toSeconds();
      assertThat(r.stream().mapToDouble(UsageRecord::gpuSeconds).sum()).as("GPU-seconds metered")
          .isEqualTo((double) run.gpus() * seconds);
      for (int i = 0; i < r.size(); i++) {
        UsageRecord u = r.get(i);
        assertThat(u.to()).isAfter(u.from());
        assertThat(slots.slotAt(u.from())).as("slot class at the start of piece %d", i)
            .isEqualTo(u.slotClass());
        assertThat(slots.slotAt(u.to().minusSeconds(1))).as("slot class at the end of piece %d", i)
            .isEqualTo(u.slotClass());
        if (i > 0) {
          assertThat(u.from()).isEqualTo(r.get(i - 1).to());
          assertThat(u.slotClass()).isNotEqualTo(r.get(i - 1).slotClass());
        }
      }
    });
  }

  @Test
  void shouldCatchAMeterThatAssumesThirtyMinuteSlots() {
    // broken: the meter splits the run only every 30 minutes on a 15-minute slot map
    Meter coarse = (gpus, from, to, slots) -> meter.meter("t", "j", null, gpus,
        ChargeBasis.ON_DEMAND, from, to,
        SlotTimeline.sampled(slots::slotAt, Duration.ofMinutes(30)));

    assertCatches(seed -> metersTheWholeRunInItsSlots(seed, coarse),
        "slot class at the end of piece");
  }

  /** The start search under test: the real one or a broken fixture. */
  interface StartFinder {
    StartChoice find(Duration duration, Instant earliest, Instant deadline, SlotTimeline slots);
  }

  record Window(int earliestOffset, int durationSeconds, int slack, int otherPermille,
      SlotTimeline slots) {}

  static Gen<Window> windows() {
    Gen<Integer> offsets = Gens.ints(0, 86_400);
    Gen<Integer> durations = Gens.ints(60, 12 * 3600);
    Gen<Integer> slacks = Gens.ints(0, 24 * 3600);
    Gen<Integer> permille = Gens.ints(0, 1000);
    Gen<SlotTimeline> slots = slots();
    return in -> new Window(offsets.generate(in), durations.generate(in), slacks.generate(in),
        permille.generate(in), slots.generate(in));
  }

  @SeededProperty
  void theCheapestStartCostsNoMoreThanAnyOtherStartInTheWindow(Seed seed) {
    CheapestStart cheapest = new CheapestStart(PricingConfig.DEFAULTS);
    findsNoDearerStart(seed, (duration, earliest, deadline, slots) ->
        cheapest.find("j", duration, earliest, deadline, 2, null, ChargeBasis.ON_DEMAND, slots));
  }

  void findsNoDearerStart(Seed seed, StartFinder finder) {
    seed.qt(300).forAll(windows()).checkAssert(w -> {
      Instant earliest = DAY.plusSeconds(w.earliestOffset());
      Duration duration = Duration.ofSeconds(w.durationSeconds());
      Instant deadline = earliest.plus(duration).plusSeconds(w.slack());
      SlotTimeline slots = w.slots();

      StartChoice c = finder.find(duration, earliest, deadline, slots);

      Instant other = earliest.plusSeconds((long) w.slack() * w.otherPermille() / 1000);
      BigDecimal otherCost =
          meter.exactCost(null, 2, ChargeBasis.ON_DEMAND, other, other.plus(duration), slots);
      BigDecimal chosenCost =
          meter.exactCost(null, 2, ChargeBasis.ON_DEMAND, c.start(), c.end(), slots);
      assertThat(c.feasible()).isTrue();
      assertThat(c.start()).isBetween(earliest, deadline.minus(duration));
      assertThat(chosenCost).as("chosen start %s no dearer than start %s", c.start(), other)
          .isLessThanOrEqualTo(otherCost);
    });
  }

  @Test
  void shouldCatchAFinderThatAlwaysStartsAsLateAsPossible() {
    // broken: the finder ignores prices and starts at the last moment that meets the deadline
    StartFinder latest = (duration, earliest, deadline, slots) -> {
      Instant start = deadline.minus(duration);
      return new StartChoice(true, start, deadline, null, null, 1, List.of());
    };

    assertCatches(seed -> findsNoDearerStart(seed, latest), "no dearer than start");
  }
}
