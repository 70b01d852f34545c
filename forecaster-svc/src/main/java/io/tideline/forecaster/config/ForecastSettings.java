package io.tideline.forecaster.config;

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
 * Everything the forecast topology decides with, as a plain value: built from
 * {@link ForecasterConfig} in the service and directly in topology tests, so the topology never
 * needs a running Quarkus.
 *
 * @param cluster the cluster this instance serves (clock ticks of other clusters are ignored)
 * @param service the service name written into dead letters
 * @param zone zone of local days and slots
 * @param forecast F1 slot statistics settings
 * @param reservation F2/F3 reservation settings
 * @param slotClassifier F4 slot engine settings
 * @param configuredHolidays holidays from configuration
 * @param sampleGrace telemetry-side wait for late samples of a minute
 * @param minuteGrace per-service wait before a minute is recorded
 * @param staleCarry how long a stale GPU keeps counting for its last service
 */
public record ForecastSettings(
    String cluster,
    String service,
    ZoneId zone,
    ForecastConfig forecast,
    ReservationConfig reservation,
    SlotClassifierConfig slotClassifier,
    List<LocalDate> configuredHolidays,
    Duration sampleGrace,
    Duration minuteGrace,
    Duration staleCarry) {

  public ForecastSettings {
    Objects.requireNonNull(cluster, "cluster");
    Objects.requireNonNull(zone, "zone");
    configuredHolidays = List.copyOf(configuredHolidays);
    if (sampleGrace.isNegative() || minuteGrace.isNegative() || staleCarry.isNegative()) {
      throw new IllegalArgumentException("grace periods must not be negative");
    }
  }

  /** The core defaults for {@code cluster} in {@code zone}, with no configured holidays. */
  public static ForecastSettings defaults(String cluster, String service, ZoneId zone) {
    return new ForecastSettings(cluster, service, zone, ForecastConfig.DEFAULTS,
        ReservationConfig.DEFAULTS, SlotClassifierConfig.DEFAULTS, List.of(),
        Duration.ofSeconds(20), Duration.ofMinutes(1), Duration.ofMinutes(2));
  }

  /** These settings with other configured holidays. */
  public ForecastSettings withHolidays(List<LocalDate> holidays) {
    return new ForecastSettings(cluster, service, zone, forecast, reservation, slotClassifier,
        holidays, sampleGrace, minuteGrace, staleCarry);
  }

  /** The slot grid every stage shares. */
  public SlotGrid grid() {
    return forecast.grid(zone);
  }

  /** The calendar of the configured holidays plus {@code declared} (from the topic). */
  public HolidayCalendar calendar(Collection<LocalDate> declared) {
    TreeSet<LocalDate> all = new TreeSet<>(configuredHolidays);
    all.addAll(declared);
    return new HolidayCalendar(zone, all);
  }
}
