package io.tideline.core.forecast;

import io.tideline.core.slots.SlotGrid;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;

/** Builders for forecast and reservation scenarios: histories, forecasts, service positions. */
final class Scenario {

  static final ZoneId UTC = ZoneOffset.UTC;
  static final String SERVICE = "chat-large";
  static final SlotGrid GRID = new SlotGrid(Duration.ofMinutes(15), UTC);

  private Scenario() {}

  static Instant at(String iso) {
    return Instant.parse(iso);
  }

  static LocalDate date(String iso) {
    return LocalDate.parse(iso);
  }

  /** A history builder for {@link #SERVICE} on the default 15-minute UTC grid. */
  static HistoryBuilder history() {
    return new HistoryBuilder(SlotHistory.empty(SERVICE, UTC, ForecastConfig.DEFAULTS));
  }

  /** A forecast of {@link #SERVICE} for the 15-minute slot at {@code slotStart}, all quantiles. */
  static SlotForecast forecast(Instant slotStart, double p50, double p90) {
    return new SlotForecast(SERVICE, slotStart, slotStart.plus(Duration.ofMinutes(15)),
        DayKind.REGULAR, ForecastBasis.REGULAR_HISTORY, 14, 14 * 15, p50, p90, p90, p90, 0.01,
        List.of());
  }

  static PositionBuilder position() {
    return new PositionBuilder();
  }

  /** Fills a {@link SlotHistory} day by day at one time of day. */
  static final class HistoryBuilder {
    private final SlotHistory history;

    HistoryBuilder(SlotHistory history) {
      this.history = history;
    }

    /** Records {@code samples} on {@code day} at {@code time} (one minute apart). */
    HistoryBuilder on(LocalDate day, LocalTime time, double... samples) {
      for (int i = 0; i < samples.length; i++) {
        history.record(day.atTime(time).plusMinutes(i).atZone(history.grid().zone()).toInstant(),
            samples[i]);
      }
      return this;
    }

    /** Records the same {@code samples} on every day of {@code [from, toInclusive]}. */
    HistoryBuilder everyDay(LocalDate from, LocalDate toInclusive, LocalTime time,
        double... samples) {
      for (LocalDate d = from; !d.isAfter(toInclusive); d = d.plusDays(1)) {
        on(d, time, samples);
      }
      return this;
    }

    SlotHistory build() {
      return history;
    }
  }

  /** A service position with zeros and no reservation unless set. */
  static final class PositionBuilder {
    private int held;
    private int demand;
    private int overIssued;
    private int poolIdle = 1000;
    private ActiveReservation reservation;

    PositionBuilder held(int gpus) {
      this.held = gpus;
      return this;
    }

    PositionBuilder demand(int gpus) {
      this.demand = gpus;
      return this;
    }

    PositionBuilder overIssued(int gpus) {
      this.overIssued = gpus;
      return this;
    }

    PositionBuilder poolIdle(int gpus) {
      this.poolIdle = gpus;
      return this;
    }

    PositionBuilder reservation(int gpus, String from, String until, int inUse) {
      this.reservation = new ActiveReservation(gpus, at(from), at(until), inUse);
      return this;
    }

    ServicePosition build() {
      return new ServicePosition(SERVICE, held, demand, overIssued, poolIdle, reservation);
    }
  }
}
