package io.tideline.forecaster.query;

import io.tideline.core.forecast.DayKind;
import io.tideline.core.forecast.HolidayCalendar;
import io.tideline.core.forecast.SlotForecast;
import io.tideline.core.forecast.SlotForecaster;
import io.tideline.core.forecast.SlotHistory;
import io.tideline.core.slots.SlotGrid;
import io.tideline.events.SlotClassMap;
import io.tideline.forecaster.config.ForecastSettings;
import io.tideline.forecaster.topology.ForecastStores;
import io.tideline.forecaster.topology.StoredSlotMaps;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Interactive queries over the topology's stores: a service's forecast for any slot, the sketch
 * quantiles of one slot, the current slot map. Read-only and computed with the same core
 * {@link SlotForecaster} the topology uses, so the API shows what the planner decides with.
 */
public final class ForecastQueries {

  /** Opens a read-only key-value store of the running topology by name. */
  @FunctionalInterface
  public interface StoreAccess {
    <V> ReadOnlyKeyValueStore<String, V> store(String name);
  }

  private final ForecastSettings settings;
  private final StoreAccess stores;
  private final SlotGrid grid;
  private final SlotForecaster forecaster;

  public ForecastQueries(ForecastSettings settings, StoreAccess stores) {
    this.settings = settings;
    this.stores = stores;
    this.grid = settings.grid();
    this.forecaster = new SlotForecaster(settings.forecast());
  }

  /** Services with a slot history, in key order. */
  public List<String> services() {
    return keys(ForecastStores.SLOT_HISTORY);
  }

  /**
   * Workload classes (W1) with a slot history: GPUs in use per class per minute, services
   * under {@code ONLINE_INFERENCE}, jobs under the class they were submitted with.
   */
  public List<String> workloadClasses() {
    return keys(ForecastStores.CLASS_HISTORY);
  }

  /** The forecast of workload class {@code workloadClass} for the slot holding {@code at}. */
  public Optional<ForecastView> classForecast(String workloadClass, Instant at) {
    return forecast(ForecastStores.CLASS_HISTORY, workloadClass, at);
  }

  /** The sketch quantiles of slot {@code slot} of a workload class on local {@code date}. */
  public Optional<ForecastView> classQuantiles(String workloadClass, LocalDate date, int slot) {
    return classForecast(workloadClass, grid.slotStart(date, slot));
  }

  private List<String> keys(String store) {
    List<String> out = new ArrayList<>();
    ReadOnlyKeyValueStore<String, byte[]> histories = stores.store(store);
    try (KeyValueIterator<String, byte[]> it = histories.all()) {
      it.forEachRemaining(kv -> out.add(kv.key));
    }
    return out;
  }

  /** The forecast of {@code serviceId} for the slot holding {@code at}; empty if unknown service. */
  public Optional<ForecastView> forecast(String serviceId, Instant at) {
    return forecast(ForecastStores.SLOT_HISTORY, serviceId, at);
  }

  private Optional<ForecastView> forecast(String store, String serviceId, Instant at) {
    byte[] bytes = stores.<byte[]>store(store).get(serviceId);
    if (bytes == null) {
      return Optional.empty();
    }
    SlotHistory history = SlotHistory.fromBytes(bytes);
    Instant slotStart = grid.slotStartOf(at);
    SlotForecast f = forecaster.forecast(history, slotStart, calendar());
    String slotClass = slotMap().map(m -> m.classes().get(grid.slotIndex(slotStart)))
        .orElse("UNKNOWN");
    return Optional.of(new ForecastView(serviceId, f.slotStart(), f.slotEnd(),
        grid.slotIndex(slotStart), f.dayKind() == DayKind.HOLIDAY, f.basis().name(), slotClass,
        f.p50(), f.p90(), f.p95(), f.p99(), settings.reservation().quantile().name(),
        f.wholeGpus(settings.reservation().quantile()),
        history.peak(grid.date(at), settings.forecast().windowDays()).gpus(), f.daysUsed(),
        f.samples(), f.relativeAccuracy(), f.trace().stream().map(Object::toString).toList()));
  }

  /** The sketch quantiles of slot {@code slot} of {@code serviceId} on local {@code date}. */
  public Optional<ForecastView> quantiles(String serviceId, LocalDate date, int slot) {
    return forecast(serviceId, grid.slotStart(date, slot));
  }

  /** The latest slot map, if one was computed. */
  public Optional<SlotMapView> slotMap() {
    byte[] bytes = stores.<byte[]>store(ForecastStores.SLOT_MAP).get(settings.cluster());
    if (bytes == null) {
      return Optional.empty();
    }
    SlotClassMap m = StoredSlotMaps.decode(bytes);
    return Optional.of(new SlotMapView(m.getCluster(), m.getDay(), m.getZone(),
        m.getSlotMinutes(), m.getClasses().stream().map(Enum::name).toList(), m.getProfile(),
        new TreeMap<>(m.getCentroids()), m.getServices(), m.getComputedAt()));
  }

  /** The holiday calendar in force: configured dates plus those declared on the topic. */
  public HolidayCalendar calendar() {
    List<LocalDate> declared = new ArrayList<>();
    ReadOnlyKeyValueStore<String, String> holidays = stores.store(ForecastStores.HOLIDAYS);
    try (KeyValueIterator<String, String> it = holidays.all()) {
      it.forEachRemaining(kv -> declared.add(LocalDate.parse(kv.key)));
    }
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
