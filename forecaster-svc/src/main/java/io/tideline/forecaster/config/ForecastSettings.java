package io.tideline.forecaster.config;

import io.tideline.core.forecast.ForecastConfig;
import io.tideline.core.forecast.HolidayCalendar;
import io.tideline.core.forecast.ReservationConfig;
import io.tideline.core.forecast.kernel.ForecastKernelConfig;
import io.tideline.core.slots.SlotGrid;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * What the forecast topology runs with, as a plain value: the kernel's policy (the core's typed
 * {@link ForecastKernelConfig}, the same value the simulator's twin passes its host) and the name
 * the service signs dead letters with. Built from {@link ForecasterConfig} in the service and
 * directly in topology tests, so the topology never needs a running Quarkus.
 *
 * @param service the service name written into dead letters
 * @param kernel the forecast kernel's policy
 */
public record ForecastSettings(String service, ForecastKernelConfig kernel) {

  public ForecastSettings {
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(kernel, "kernel");
  }

  /** The core defaults for {@code cluster} in {@code zone}, with no configured holidays. */
  public static ForecastSettings defaults(String cluster, String service, ZoneId zone) {
    return new ForecastSettings(service, ForecastKernelConfig.defaults(cluster, zone));
  }

  /** These settings with other configured holidays. */
  public ForecastSettings withHolidays(List<LocalDate> holidays) {
    return new ForecastSettings(service, kernel.withHolidays(holidays));
  }

  public String cluster() {
    return kernel.cluster();
  }

  public ZoneId zone() {
    return kernel.zone();
  }

  public ForecastConfig forecast() {
    return kernel.forecast();
  }

  public ReservationConfig reservation() {
    return kernel.reservation();
  }

  /** The slot grid every decision shares. */
  public SlotGrid grid() {
    return kernel.grid();
  }

  /** The calendar of the configured holidays plus {@code declared} (from the topic). */
  public HolidayCalendar calendar(Collection<LocalDate> declared) {
    return kernel.calendar(declared);
  }
}
