package io.tideline.core.forecast;

import static io.tideline.core.forecast.Scenario.UTC;
import static io.tideline.core.forecast.Scenario.at;
import static io.tideline.core.forecast.Scenario.date;
import static io.tideline.core.forecast.Scenario.history;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.time.LocalTime;
import org.junit.jupiter.api.Test;

class SlotForecasterTest {

  private static final LocalTime EIGHT = LocalTime.of(8, 0);
  private final SlotForecaster forecaster = new SlotForecaster(ForecastConfig.DEFAULTS);
  private final HolidayCalendar noHolidays = HolidayCalendar.none(UTC);

  @Test
  void shouldForecastARegularSlotFromTheSameSlotOfThePastFourteenDays() {
    SlotHistory history = history()
        .everyDay(date("2026-11-02"), date("2026-11-15"), EIGHT, 10, 10, 10, 10, 12)
        .on(date("2026-11-15"), LocalTime.of(9, 0), 90) // another slot: ignored
        .build();

    SlotForecast f = forecaster.forecast(history, at("2026-11-16T08:00:00Z"), noHolidays);

    assertThat(f.basis()).isEqualTo(ForecastBasis.REGULAR_HISTORY);
    assertThat(f.daysUsed()).isEqualTo(14);
    assertThat(f.samples()).isEqualTo(70);
    assertThat(f.p50()).isCloseTo(10, within(0.1));
    assertThat(f.p90()).isCloseTo(12, within(0.12));
    assertThat(f.wholeGpus(Quantile.P90)).isEqualTo(12);
    assertThat(f.slotEnd()).isEqualTo(at("2026-11-16T08:15:00Z"));
    assertThat(f.trace()).anySatisfy(t -> assertThat(t.detail())
        .contains("14 regular days with data in 2026-11-02..2026-11-15"));
  }

  @Test
  void shouldDropDayFifteenFromTheRollingWindow() {
    SlotHistory history = history()
        .on(date("2026-11-01"), EIGHT, 100, 100, 100) // 15 days before 11-16: out
        .everyDay(date("2026-11-02"), date("2026-11-15"), EIGHT, 10, 10, 10)
        .build();

    SlotForecast f = forecaster.forecast(history, at("2026-11-16T08:00:00Z"), noHolidays);

    assertThat(f.daysUsed()).isEqualTo(14);
    assertThat(f.p99()).isCloseTo(10, within(0.1));
  }

  @Test
  void shouldStillUseDayFourteenOfTheRollingWindow() {
    SlotHistory history = history()
        .on(date("2026-11-02"), EIGHT, 100, 100, 100) // 14 days before 11-16: in
        .everyDay(date("2026-11-03"), date("2026-11-15"), EIGHT, 10, 10, 10)
        .build();

    SlotForecast f = forecaster.forecast(history, at("2026-11-16T08:00:00Z"), noHolidays);

    assertThat(f.daysUsed()).isEqualTo(14);
    assertThat(f.p99()).isCloseTo(100, within(1.0));
  }

  @Test
  void shouldNotUseTheTargetDayItself() {
    SlotHistory history = history()
        .everyDay(date("2026-11-02"), date("2026-11-15"), EIGHT, 10)
        .on(date("2026-11-16"), EIGHT, 500) // already observed today: not history yet
        .build();

    SlotForecast f = forecaster.forecast(history, at("2026-11-16T08:00:00Z"), noHolidays);

    assertThat(f.p99()).isCloseTo(10, within(0.1));
  }

  @Test
  void shouldScaleTheForecastByTodaysLevelInTheLastHour() {
    // Every day 10 GPUs from 07:00 to 08:15; today 07:00-07:45 runs at 5: half the usual level.
    SlotHistory history = history()
        .everyDay(date("2026-11-02"), date("2026-11-15"), LocalTime.of(7, 0), 10)
        .everyDay(date("2026-11-02"), date("2026-11-15"), LocalTime.of(7, 15), 10)
        .everyDay(date("2026-11-02"), date("2026-11-15"), LocalTime.of(7, 30), 10)
        .everyDay(date("2026-11-02"), date("2026-11-15"), LocalTime.of(7, 45), 10)
        .everyDay(date("2026-11-02"), date("2026-11-15"), EIGHT, 10, 12)
        .on(date("2026-11-16"), LocalTime.of(7, 0), 5)
        .on(date("2026-11-16"), LocalTime.of(7, 15), 5)
        .on(date("2026-11-16"), LocalTime.of(7, 30), 5)
        .build();

    // Made at 07:45 for 08:00 (15 min ahead): the slots 07:00-07:45 are complete.
    SlotForecast f = forecaster.forecast(history, at("2026-11-16T08:00:00Z"), noHolidays,
        at("2026-11-16T07:45:00Z"));

    assertThat(f.p50()).isCloseTo(5, within(0.1));
    assertThat(f.p90()).isCloseTo(6, within(0.1));
    assertThat(f.trace()).anySatisfy(t -> assertThat(t.detail())
        .contains("3 slots before 2026-11-16T07:45:00Z").contains("ratio 0.50"));
  }

  @Test
  void shouldBoundTheLevelCorrection() {
    SlotHistory history = history()
        .everyDay(date("2026-11-02"), date("2026-11-15"), LocalTime.of(7, 45), 10)
        .everyDay(date("2026-11-02"), date("2026-11-15"), EIGHT, 10)
        .on(date("2026-11-16"), LocalTime.of(7, 45), 100) // ten times the usual level
        .build();

    SlotForecast f = forecaster.forecast(history, at("2026-11-16T08:00:00Z"), noHolidays);

    assertThat(f.p50()).isCloseTo(30, within(0.5)); // bounded at x 3
  }

  @Test
  void shouldNotCorrectTheLevelWhenTurnedOff() {
    SlotHistory history = history()
        .everyDay(date("2026-11-02"), date("2026-11-15"), LocalTime.of(7, 45), 10)
        .everyDay(date("2026-11-02"), date("2026-11-15"), EIGHT, 10)
        .on(date("2026-11-16"), LocalTime.of(7, 45), 5)
        .build();

    SlotForecast f = new SlotForecaster(ForecastConfig.DEFAULTS.withLevelWindow(Duration.ZERO))
        .forecast(history, at("2026-11-16T08:00:00Z"), noHolidays);

    assertThat(f.p50()).isCloseTo(10, within(0.1));
  }

  @Test
  void shouldForecastAHolidaySlotFromHolidayHistoryOnly() {
    HolidayCalendar calendar = HolidayCalendar.of(UTC, date("2026-01-01"), date("2026-05-01"),
        date("2026-10-01"), date("2026-12-25"));
    SlotHistory history = history()
        .on(date("2026-01-01"), EIGHT, 2, 2)
        .on(date("2026-05-01"), EIGHT, 2, 3)
        .on(date("2026-10-01"), EIGHT, 3, 3)
        .everyDay(date("2026-12-11"), date("2026-12-24"), EIGHT, 20, 20)
        .build();

    SlotForecast f = forecaster.forecast(history, at("2026-12-25T08:00:00Z"), calendar);

    assertThat(f.dayKind()).isEqualTo(DayKind.HOLIDAY);
    assertThat(f.basis()).isEqualTo(ForecastBasis.HOLIDAY_HISTORY);
    assertThat(f.daysUsed()).isEqualTo(3);
    assertThat(f.p50()).isCloseTo(2, within(0.02));
    assertThat(f.p99()).isCloseTo(3, within(0.03));
  }

  @Test
  void shouldKeepHolidaysOutOfRegularStatistics() {
    HolidayCalendar calendar = HolidayCalendar.of(UTC, date("2026-12-25"));
    SlotHistory history = history()
        .everyDay(date("2026-12-14"), date("2026-12-24"), EIGHT, 20, 20)
        .on(date("2026-12-25"), EIGHT, 50, 50)
        .everyDay(date("2026-12-26"), date("2026-12-27"), EIGHT, 20, 20)
        .build();

    SlotForecast withHoliday = forecaster.forecast(history, at("2026-12-28T08:00:00Z"), calendar);
    SlotForecast unflagged = forecaster.forecast(history, at("2026-12-28T08:00:00Z"), noHolidays);

    assertThat(withHoliday.daysUsed()).isEqualTo(13);
    assertThat(withHoliday.p99()).isCloseTo(20, within(0.2));
    assertThat(unflagged.daysUsed()).isEqualTo(14);
    assertThat(unflagged.p99()).isCloseTo(50, within(0.5));
  }

  @Test
  void shouldFallBackToScaledRegularDaysWithTwoHolidaysOfHistory() {
    SlotForecaster halfOnHolidays = new SlotForecaster(
        new ForecastConfig(Duration.ofMinutes(15), 14, 365, 3, 0.5, 0.01));
    HolidayCalendar calendar = HolidayCalendar.of(UTC, date("2026-05-01"), date("2026-10-01"),
        date("2026-12-25"));
    SlotHistory history = history()
        .on(date("2026-05-01"), EIGHT, 2)
        .on(date("2026-10-01"), EIGHT, 2)
        .everyDay(date("2026-12-11"), date("2026-12-24"), EIGHT, 20, 20)
        .build();

    SlotForecast f = halfOnHolidays.forecast(history, at("2026-12-25T08:00:00Z"), calendar);

    assertThat(f.basis()).isEqualTo(ForecastBasis.REGULAR_SCALED_FOR_HOLIDAY);
    assertThat(f.daysUsed()).isEqualTo(14);
    assertThat(f.p50()).isCloseTo(10, within(0.1));
    assertThat(f.trace()).anySatisfy(t -> assertThat(t.detail())
        .contains("2 holidays with data since 2025-12-25 < minimum 3"));
  }

  @Test
  void shouldIgnoreHolidaysOlderThanTheHolidayWindow() {
    HolidayCalendar calendar = HolidayCalendar.of(UTC, date("2025-12-24"), date("2026-05-01"),
        date("2026-10-01"), date("2026-12-25"));
    SlotHistory history = history()
        .on(date("2025-12-24"), EIGHT, 2) // 366 days before: outside the 365-day holiday window
        .on(date("2026-05-01"), EIGHT, 2)
        .on(date("2026-10-01"), EIGHT, 2)
        .everyDay(date("2026-12-11"), date("2026-12-24"), EIGHT, 20)
        .build();

    SlotForecast f = forecaster.forecast(history, at("2026-12-25T08:00:00Z"), calendar);

    assertThat(f.basis()).isEqualTo(ForecastBasis.REGULAR_SCALED_FOR_HOLIDAY);
    assertThat(f.p50()).isCloseTo(20, within(0.2));
  }

  @Test
  void shouldReportNoHistoryForASlotNeverSeen() {
    SlotHistory history = history()
        .everyDay(date("2026-11-02"), date("2026-11-15"), EIGHT, 10).build();

    SlotForecast f = forecaster.forecast(history, at("2026-11-16T03:00:00Z"), noHolidays);

    assertThat(f.basis()).isEqualTo(ForecastBasis.NO_HISTORY);
    assertThat(f.wholeGpus(Quantile.P99)).isZero();
  }

  @Test
  void shouldRejectAnInstantThatIsNotASlotBoundary() {
    SlotHistory history = history().build();

    assertThatThrownBy(() ->
        forecaster.forecast(history, at("2026-11-16T08:01:00Z"), noHolidays))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("slot boundary");
  }

  @Test
  void shouldReportTheHistoricalPeakOverTheWindowForTheOnlineGuarantee() {
    SlotHistory history = history()
        .on(date("2026-11-01"), EIGHT, 90) // outside a 14-day window ending 11-15
        .everyDay(date("2026-11-02"), date("2026-11-15"), EIGHT, 10)
        .on(date("2026-11-09"), LocalTime.of(19, 0), 42.5)
        .build();

    PeakUsage peak = history.peak(date("2026-11-15"), 14);

    assertThat(peak.gpus()).isEqualTo(42.5);
    assertThat(peak.day()).isEqualTo(date("2026-11-09"));
    assertThat(peak.windowStart()).isEqualTo(date("2026-11-02"));
    assertThat(history.peak(date("2026-11-14"), 14).gpus()).isEqualTo(90);
  }

  @Test
  void shouldPruneRegularDaysOutsideTheWindowButKeepHolidays() {
    HolidayCalendar calendar = HolidayCalendar.of(UTC, date("2026-10-01"));
    SlotHistory history = history()
        .on(date("2026-10-01"), EIGHT, 2)
        .on(date("2026-11-01"), EIGHT, 9)
        .everyDay(date("2026-11-02"), date("2026-11-15"), EIGHT, 10)
        .build();

    history.prune(date("2026-11-16"), calendar, ForecastConfig.DEFAULTS);

    assertThat(history.days()).contains(date("2026-10-01"), date("2026-11-02"))
        .doesNotContain(date("2026-11-01")).hasSize(15);
  }
}
