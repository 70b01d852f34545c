package io.tideline.core.forecast.kernel;

import io.tideline.core.forecast.ForecastConfig;
import io.tideline.core.forecast.HolidayCalendar;
import io.tideline.core.forecast.ReservationConfig;
import io.tideline.core.slots.SlotClassifierConfig;
import io.tideline.core.slots.SlotGrid;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Everything the {@link ForecastKernel} decides with (F1–F4, issue #21), one typed value the
 * forecaster service builds from its configuration and the simulator from its own.
 *
 * @param cluster the cluster this kernel serves: ticks of other clusters are ignored
 * @param zone zone of local days, slots and holidays (F1)
 * @param forecast F1 slot statistics and the {@code DemandForecaster}'s calibration
 * @param reservation F2/F3 reservation planner settings
 * @param slotClassifier F4 slot engine settings
 * @param configuredHolidays holidays from configuration (the holiday facts add more)
 * @param minuteGrace how long after a minute ends the kernel waits for its GPU observations
 *     before it attributes and records the minute (tick time); default 1 min
 * @param staleCarry how long a GPU whose samples turn STALE (or stop) keeps counting for the owner
 *     of its last OK sample; beyond it the owner's minute is unknown and not recorded (a stale GPU
 *     is never read as 0 usage); default 2 min
 * @param silentForget how long a GPU that stopped reporting altogether is remembered (and makes
 *     its last owner's minutes unknown past the carry) before it is forgotten as gone; default
 *     10 min. A node that leaves the inventory forgets its GPUs at once
 * @param maxInputLead how far ahead of the last tick an input's event time may be: further, it is
 *     refused (dead-lettered), never trusted to move anyone's clock; default 10 min
 * @param jobMemory how long a job is remembered after it ends (its class for the per-class series,
 *     its end for the stale carry); default 1 day
 */
public record ForecastKernelConfig(
    String cluster,
    ZoneId zone,
    ForecastConfig forecast,
    ReservationConfig reservation,
    SlotClassifierConfig slotClassifier,
    List<LocalDate> configuredHolidays,
    Duration minuteGrace,
    Duration staleCarry,
    Duration silentForget,
    Duration maxInputLead,
    Duration jobMemory) {

  public ForecastKernelConfig {
    Objects.requireNonNull(cluster, "cluster");
    Objects.requireNonNull(zone, "zone");
    Objects.requireNonNull(forecast, "forecast");
    Objects.requireNonNull(reservation, "reservation");
    Objects.requireNonNull(slotClassifier, "slotClassifier");
    configuredHolidays = List.copyOf(configuredHolidays);
    for (Duration d : List.of(minuteGrace, staleCarry, silentForget, maxInputLead, jobMemory)) {
      if (d.isNegative()) {
        throw new IllegalArgumentException("durations must not be negative: " + d);
      }
    }
    if (silentForget.compareTo(staleCarry) < 0) {
      throw new IllegalArgumentException("silentForget must be at least staleCarry");
    }
  }

  /** The documented defaults for {@code cluster} in {@code zone}, no configured holidays. */
  public static ForecastKernelConfig defaults(String cluster, ZoneId zone) {
    return new ForecastKernelConfig(cluster, zone, ForecastConfig.DEFAULTS,
        ReservationConfig.DEFAULTS, SlotClassifierConfig.DEFAULTS, List.of(),
        Duration.ofMinutes(1), Duration.ofMinutes(2), Duration.ofMinutes(10),
        Duration.ofMinutes(10), Duration.ofDays(1));
  }

  /** This config with other configured holidays. */
  public ForecastKernelConfig withHolidays(List<LocalDate> holidays) {
    return new ForecastKernelConfig(cluster, zone, forecast, reservation, slotClassifier,
        holidays, minuteGrace, staleCarry, silentForget, maxInputLead, jobMemory);
  }

  /** This config with other F1 settings. */
  public ForecastKernelConfig withForecast(ForecastConfig settings) {
    return new ForecastKernelConfig(cluster, zone, settings, reservation, slotClassifier,
        configuredHolidays, minuteGrace, staleCarry, silentForget, maxInputLead, jobMemory);
  }

  /** This config with other F2/F3 reservation settings. */
  public ForecastKernelConfig withReservation(ReservationConfig settings) {
    return new ForecastKernelConfig(cluster, zone, forecast, settings, slotClassifier,
        configuredHolidays, minuteGrace, staleCarry, silentForget, maxInputLead, jobMemory);
  }

  /** The slot grid of every decision. */
  public SlotGrid grid() {
    return forecast.grid(zone);
  }

  /** The calendar of the configured holidays plus {@code declared}. */
  public HolidayCalendar calendar(Collection<LocalDate> declared) {
    TreeSet<LocalDate> all = new TreeSet<>(configuredHolidays);
    all.addAll(declared);
    return new HolidayCalendar(zone, all);
  }
}
