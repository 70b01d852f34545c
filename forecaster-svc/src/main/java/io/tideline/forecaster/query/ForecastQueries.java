package io.tideline.forecaster.query;

import io.tideline.core.forecast.Calibration;
import io.tideline.core.forecast.DayKind;
import io.tideline.core.forecast.DemandForecaster;
import io.tideline.core.forecast.HolidayCalendar;
import io.tideline.core.forecast.SlotForecast;
import io.tideline.core.forecast.SlotForecaster;
import io.tideline.core.forecast.SlotHistory;
import io.tideline.core.forecast.kernel.ForecastState;
import io.tideline.core.forecast.kernel.SlotMapRecord;
import io.tideline.core.slots.SlotGrid;
import io.tideline.forecaster.config.ForecastSettings;
import io.tideline.forecaster.topology.ForecastStores;
import io.tideline.platform.kernel.forecast.ForecastHost;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Interactive queries over the topology's stores (the forecast kernel's tables, decoded by the
 * platform's {@link ForecastHost}): a service's forecast for any slot as the kernel makes it
 * ({@link DemandForecaster} with the service's calibration), the same-slot statistics of one slot
 * ({@link SlotForecaster}), the current slot map. Read-only: the API shows what the kernel decides
 * with.
 */
public final class ForecastQueries {

  /** Opens a read-only key-value store of the running topology by name. */
  @FunctionalInterface
  public interface StoreAccess {
    ReadOnlyKeyValueStore<String, SpecificRecord> store(String name);
  }

  private final ForecastSettings settings;
  private final StoreAccess stores;
  private final SlotGrid grid;
  private final ForecastHost host;
  private final DemandForecaster forecaster;
  private final SlotForecaster sameSlot;

  public ForecastQueries(ForecastSettings settings, StoreAccess stores) {
    this.settings = settings;
    this.stores = stores;
    this.grid = settings.grid();
    this.host = new ForecastHost(settings.kernel());
    this.forecaster = new DemandForecaster(settings.forecast());
    this.sameSlot = new SlotForecaster(settings.forecast());
  }

  /** Services with a slot history, in key order. */
  public List<String> services() {
    return keys(ForecastState.HISTORIES);
  }

  /**
   * Workload classes (W1) with a slot history: GPUs in use per class per minute, services
   * under {@code ONLINE_INFERENCE}, jobs under the class they were submitted with.
   */
  public List<String> workloadClasses() {
    return keys(ForecastState.CLASS_HISTORIES);
  }

  /** The same-slot forecast of workload class {@code workloadClass} for the slot holding {@code at}. */
  public Optional<ForecastView> classForecast(String workloadClass, Instant at) {
    return history(ForecastState.CLASS_HISTORIES, workloadClass)
        .map(h -> view(h, sameSlot.forecast(h, grid.slotStartOf(at), calendar())));
  }

  /** The same-slot statistics of slot {@code slot} of a workload class on local {@code date}. */
  public Optional<ForecastView> classQuantiles(String workloadClass, LocalDate date, int slot) {
    return classForecast(workloadClass, grid.slotStart(date, slot));
  }

  private List<String> keys(String table) {
    List<String> out = new ArrayList<>();
    try (KeyValueIterator<String, SpecificRecord> it =
        stores.store(ForecastStores.of(table)).all()) {
      it.forEachRemaining(kv -> out.add(kv.key));
    }
    return out;
  }

  private Optional<SlotHistory> history(String table, String id) {
    SpecificRecord r = stores.store(ForecastStores.of(table)).get(id);
    return r == null ? Optional.empty() : Optional.of((SlotHistory) host.fromStore(table, r));
  }

  /**
   * The forecast of {@code serviceId} for the slot holding {@code at}, as the kernel would make
   * it at the slot's start; empty for an unknown service.
   */
  public Optional<ForecastView> forecast(String serviceId, Instant at) {
    Optional<SlotHistory> history = history(ForecastState.HISTORIES, serviceId);
    if (history.isEmpty()) {
      return Optional.empty();
    }
    SpecificRecord c = stores.store(ForecastStores.of(ForecastState.CALIBRATIONS)).get(serviceId);
    Calibration calibration = c == null ? Calibration.EMPTY
        : (Calibration) host.fromStore(ForecastState.CALIBRATIONS, c);
    Instant slotStart = grid.slotStartOf(at);
    return Optional.of(view(history.get(),
        forecaster.forecast(history.get(), calibration, slotStart, calendar(), slotStart)));
  }

  /** The same-slot statistics (sketch quantiles) of slot {@code slot} of {@code serviceId} on {@code date}. */
  public Optional<ForecastView> quantiles(String serviceId, LocalDate date, int slot) {
    Instant slotStart = grid.slotStart(date, slot);
    return history(ForecastState.HISTORIES, serviceId)
        .map(h -> view(h, sameSlot.forecast(h, slotStart, calendar())));
  }

  private ForecastView view(SlotHistory history, SlotForecast f) {
    String slotClass = slotMap().map(m -> m.classes().get(grid.slotIndex(f.slotStart())))
        .orElse("UNKNOWN");
    return new ForecastView(history.serviceId(), f.slotStart(), f.slotEnd(),
        grid.slotIndex(f.slotStart()), f.dayKind() == DayKind.HOLIDAY, f.basis().name(),
        slotClass, f.p50(), f.p90(), f.p95(), f.p99(), settings.reservation().quantile().name(),
        f.wholeGpus(settings.reservation().quantile()),
        history.peak(grid.date(f.slotStart()), settings.forecast().windowDays()).gpus(),
        f.daysUsed(), f.samples(), f.relativeAccuracy(),
        f.trace().stream().map(Object::toString).toList());
  }

  /** The latest slot map, if one was computed. */
  public Optional<SlotMapView> slotMap() {
    SpecificRecord r = stores.store(ForecastStores.of(ForecastState.SLOT_MAPS))
        .get(settings.cluster());
    if (r == null) {
      return Optional.empty();
    }
    SlotMapRecord m = (SlotMapRecord) host.fromStore(ForecastState.SLOT_MAPS, r);
    Map<String, Double> centroids = new TreeMap<>();
    m.centroids().forEach((c, v) -> centroids.put(c.name(), v));
    return Optional.of(new SlotMapView(m.cluster(), m.day().toString(), m.zone(),
        m.slotMinutes(), m.classes().stream().map(Enum::name).toList(), m.profile(),
        centroids, m.services(), m.computedAt()));
  }

  /** The holiday calendar in force: configured dates plus those declared on the topic. */
  public HolidayCalendar calendar() {
    List<LocalDate> declared = new ArrayList<>();
    keys(ForecastState.HOLIDAYS).forEach(d -> declared.add(LocalDate.parse(d)));
    return settings.calendar(declared);
  }
  /**
   * A slot forecast as the API shows it.
   *
   * @param reserveGpus whole GPUs a reservation for this slot would cover (at {@code quantile})
   */
  public record ForecastView(String serviceId, Instant slotStart, Instant slotEnd, int slotIndex,
      boolean holiday, String basis, String slotClass, double p50, double p90, double p95,
      double p99, String quantile, int reserveGpus, double historicalPeak, int sampleDays,
      long samples, double relativeAccuracy, List<String> trace) {}

  /** The F4 slot map as the API shows it. */
  public record SlotMapView(String cluster, String day, String zone, int slotMinutes,
      List<String> classes, List<Double> profile, Map<String, Double> centroids, int services,
      Instant computedAt) {}
}
