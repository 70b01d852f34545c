package io.tideline.core.forecast;

import static io.tideline.core.forecast.Scenario.UTC;
import static io.tideline.core.forecast.Scenario.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Scenarios of the ingredients of {@link DemandForecaster}, one at a time (issue #21). */
class DemandForecasterTest {

  private final DemandForecaster forecaster = new DemandForecaster(ForecastConfig.DEFAULTS);
  private final HolidayCalendar noHolidays = HolidayCalendar.none(UTC);
  private static final Duration MINUTE = Duration.ofMinutes(1);

  /** {@code gpus} every minute of {@code [from, from + minutes)}. */
  private static SlotHistory flat(SlotHistory h, Instant from, int minutes, double gpus) {
    SlotHistory out = h;
    for (int m = 0; m < minutes; m++) {
      out = out.plus(from.plus(MINUTE.multipliedBy(m)), gpus);
    }
    return out;
  }

  private static SlotHistory empty() {
    return SlotHistory.empty(Scenario.SERVICE, UTC, ForecastConfig.DEFAULTS);
  }

  @Test
  void shouldForecastANewServiceFromItsFirstSlotWithAMargin() {
    SlotHistory h = flat(empty(), at("2026-11-16T08:00:00Z"), 15, 10);

    SlotForecast f = forecaster.forecast(h, Calibration.EMPTY, at("2026-11-16T08:30:00Z"),
        noHolidays, at("2026-11-16T08:15:00Z"));

    assertThat(f.basis()).isEqualTo(ForecastBasis.COLD_START);
    assertThat(f.p50()).isCloseTo(10, within(0.1));
    // flat usage: the minimum margin of 20%
    assertThat(f.p90()).isCloseTo(12, within(0.15));
    assertThat(f.trace()).anySatisfy(t -> assertThat(t.rule()).isEqualTo("F1 cold start"));
  }

  @Test
  void shouldWidenTheColdStartMarginWithTheRecentSpread() {
    SlotHistory h = empty();
    for (int m = 0; m < 30; m++) {
      h = h.plus(at("2026-11-16T08:00:00Z").plus(MINUTE.multipliedBy(m)), m % 2 == 0 ? 10 : 16);
    }

    SlotForecast f = forecaster.forecast(h, Calibration.EMPTY, at("2026-11-16T08:45:00Z"),
        noHolidays, at("2026-11-16T08:30:00Z"));

    // spread p90 / p50 - 1 = 60%: 60% above the last level
    assertThat(f.basis()).isEqualTo(ForecastBasis.COLD_START);
    assertThat(f.p90() / f.p50()).isCloseTo(1.6, within(0.03));
  }

  @Test
  void shouldNotForecastWithoutAnyData() {
    SlotForecast f = forecaster.forecast(empty(), Calibration.EMPTY, at("2026-11-16T08:30:00Z"),
        noHolidays, at("2026-11-16T08:15:00Z"));

    assertThat(f.basis()).isEqualTo(ForecastBasis.NO_HISTORY);
    assertThat(f.p90()).isZero();
  }

  @Test
  void shouldKeepTheLastLevelAcrossATelemetryGapInsteadOfReadingZero() {
    SlotHistory h = flat(empty(), at("2026-11-16T06:00:00Z"), 120, 10); // 06:00-08:00
    // nothing recorded 08:00-09:00: a gap
    SlotForecast afterGap = forecaster.forecast(h, Calibration.EMPTY,
        at("2026-11-16T09:15:00Z"), noHolidays, at("2026-11-16T09:00:00Z"));
    SlotForecast beforeGap = forecaster.forecast(h, Calibration.EMPTY,
        at("2026-11-16T08:15:00Z"), noHolidays, at("2026-11-16T08:00:00Z"));
    // had the gap been read as zero demand, the last level would be 0
    SlotHistory zeros = flat(h, at("2026-11-16T08:00:00Z"), 60, 0);
    SlotForecast zeroed = forecaster.forecast(zeros, Calibration.EMPTY,
        at("2026-11-16T09:15:00Z"), noHolidays, at("2026-11-16T09:00:00Z"));

    assertThat(afterGap.p50()).isCloseTo(beforeGap.p50(), within(1e-9));
    assertThat(afterGap.p90()).isCloseTo(beforeGap.p90(), within(1e-9));
    assertThat(zeroed.p50()).isLessThan(0.5);
  }

  @Test
  void shouldCalibrateTheP90OnSettledForecastsOnceThereAreEnough() {
    // 24 settled slots whose actual was 1.0-1.23 x the forecast median
    Calibration c = Calibration.EMPTY;
    SlotHistory h = empty();
    Instant t = at("2026-11-16T00:00:00Z");
    for (int i = 0; i < 24; i++) {
      Instant slot = t.plus(Duration.ofMinutes(15L * i));
      SlotForecast f = Scenario.forecast(slot, 10, 12);
      c = forecaster.remember(c, f);
      h = flat(h, slot, 15, 10 * (1 + i / 100.0));
    }
    c = forecaster.settle(c, h, noHolidays, at("2026-11-16T06:00:00Z"));
    assertThat(c.settled()).hasSize(24);
    assertThat(c.pending()).isEmpty();

    SlotForecast f = forecaster.forecast(h, c, at("2026-11-16T06:15:00Z"), noHolidays,
        at("2026-11-16T06:00:00Z"));

    // ratio quantile at 0.92: 1 + 0.92 * 23 / 100 = 1.212 (the sketch's 1% on the actuals)
    assertThat(f.p90() / f.p50()).isCloseTo(1.212, within(0.015));
    assertThat(f.trace()).anySatisfy(e -> assertThat(e.rule()).isEqualTo("F1 calibrated quantile"));
  }

  @Test
  void shouldDropASettledSlotWithoutDataRatherThanCountItAsZero() {
    SlotHistory h = flat(empty(), at("2026-11-16T08:00:00Z"), 15, 10);
    Calibration c = forecaster.remember(Calibration.EMPTY,
        Scenario.forecast(at("2026-11-16T08:15:00Z"), 10, 12)); // that slot gets no data

    c = forecaster.settle(c, h, noHolidays, at("2026-11-16T09:00:00Z"));

    assertThat(c.pending()).isEmpty();
    assertThat(c.settled()).isEmpty();
  }

  @Test
  void shouldShortenItsMemoryAfterALevelShift() {
    // two weeks at 40 GPUs in the morning, then from 06:00 on 11-16 it falls to 15
    SlotHistory h = empty();
    for (int d = 0; d < 14; d++) {
      h = flat(h, at("2026-11-02T04:00:00Z").plus(Duration.ofDays(d)), 8 * 60, 40);
    }
    Calibration c = Calibration.EMPTY;
    Instant shift = at("2026-11-16T06:00:00Z");
    h = flat(h, at("2026-11-16T04:00:00Z"), 120, 40);
    for (int i = 0; i < 16; i++) { // 4 hours of slots at 15 GPUs, each forecast and settled
      Instant slot = shift.plus(Duration.ofMinutes(15L * i));
      c = forecaster.remember(c, forecaster.forecast(h, c, slot, noHolidays,
          slot.minus(Duration.ofMinutes(15))));
      h = flat(h, slot, 15, 15);
      c = forecaster.settle(c, h, noHolidays, slot.plus(Duration.ofMinutes(15)));
    }

    assertThat(c.shiftAt()).isEqualTo(shift);
    // the next day's 07:00 slot: the old regime is no longer in the same-slot statistics
    SlotHistory nextDay = flat(h, at("2026-11-17T04:00:00Z"), 180, 15);
    SlotForecast f = forecaster.forecast(nextDay, c, at("2026-11-17T07:15:00Z"), noHolidays,
        at("2026-11-17T07:00:00Z"));
    assertThat(f.basis()).isEqualTo(ForecastBasis.REGULAR_HISTORY);
    assertThat(f.daysUsed()).isEqualTo(1);
    assertThat(f.p50()).isCloseTo(15, within(0.5));
    // today's slots before the shift's hour on the next day: no post-shift history yet
    SlotForecast early = forecaster.forecast(nextDay, c, at("2026-11-17T05:15:00Z"), noHolidays,
        at("2026-11-17T05:00:00Z"));
    assertThat(early.basis()).isEqualTo(ForecastBasis.LEVEL_SHIFT);
    assertThat(early.p50()).isCloseTo(15, within(0.5));
  }

  @Test
  void shouldNotDeclareAShiftForAnHourOfOddDemand() {
    SlotHistory h = empty();
    for (int d = 0; d < 14; d++) {
      h = flat(h, at("2026-11-02T04:00:00Z").plus(Duration.ofDays(d)), 8 * 60, 40);
    }
    Calibration c = Calibration.EMPTY;
    for (int i = 0; i < 16; i++) {
      Instant slot = at("2026-11-16T06:00:00Z").plus(Duration.ofMinutes(15L * i));
      c = forecaster.remember(c, Scenario.forecast(slot, 40, 44));
      h = flat(h, slot, 15, i < 4 ? 15 : 40); // one hour at 15, then back
      c = forecaster.settle(c, h, noHolidays, slot.plus(Duration.ofMinutes(15)));
    }

    assertThat(c.shiftAt()).isNull();
    assertThat(c.settled()).extracting(Calibration.Settled::actual).hasSize(16);
    assertThat(List.of(c.runSide())).containsExactly(0);
  }
}
