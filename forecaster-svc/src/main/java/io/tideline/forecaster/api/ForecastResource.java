package io.tideline.forecaster.api;

import io.tideline.forecaster.config.ForecastSettings;
import io.tideline.forecaster.query.ForecastQueries;
import io.tideline.forecaster.query.ForecastQueries.ForecastView;
import io.tideline.forecaster.query.ForecastQueries.SlotMapView;
import io.tideline.platform.security.RestGuard;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Read-only HTTP view of the forecaster's state (Kafka Streams interactive queries): what the
 * reservation planner decides with, for dashboards (O1) and for explaining a reservation (O2).
 *
 * <ul>
 *   <li>{@code GET /forecasts} — services with history
 *   <li>{@code GET /forecasts/{serviceId}?at=2026-11-10T09:00:00Z} — forecast of the slot holding
 *       {@code at} (required: the service never reads the wall clock)
 *   <li>{@code GET /forecasts/{serviceId}/slots/{index}?date=2026-11-10} — the sketch quantiles
 *       of that slot of the day
 *   <li>{@code GET /slotmap} — the latest F4 slot map
 *   <li>{@code GET /classes}, {@code GET /classes/{class}?at=…},
 *       {@code GET /classes/{class}/slots/{index}?date=…} — the same per workload class (W1)
 * </ul>
 * 503 while the stores are not queryable (starting, restoring, rebalancing); 404 for an unknown
 * service or before the first slot map; 400 for a malformed time, date or slot. With bearer tokens
 * on (ADR 0026) the forecasts are for operators (they show every service's load): 403.
 */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
@ApplicationScoped
public class ForecastResource {

  private final ForecastQueries queries;
  private final ForecastSettings settings;
  private final RestGuard guard;

  public ForecastResource(KafkaStreams streams, ForecastSettings settings, RestGuard guard) {
    this.settings = settings;
    this.guard = guard;
    this.queries = new ForecastQueries(settings, name -> streams.store(
        StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.keyValueStore())));
  }

  @GET
  @Path("forecasts")
  public List<String> services() {
    return query(queries::services);
  }

  @GET
  @Path("forecasts/{serviceId}")
  public ForecastView forecast(@PathParam("serviceId") String serviceId,
      @QueryParam("at") String at) {
    Instant when = parse("at", at, Instant::parse);
    return query(() -> queries.forecast(serviceId, when)).orElseThrow(() -> notFound(serviceId));
  }

  @GET
  @Path("forecasts/{serviceId}/slots/{slot}")
  public ForecastView quantiles(@PathParam("serviceId") String serviceId,
      @PathParam("slot") int slot, @QueryParam("date") String date) {
    LocalDate day = parse("date", date, LocalDate::parse);
    int slots = settings.grid().slotsPerDay();
    if (slot < 0 || slot >= slots) {
      throw error(400, "slot must be in 0.." + (slots - 1) + ", got " + slot);
    }
    return query(() -> queries.quantiles(serviceId, day, slot))
        .orElseThrow(() -> notFound(serviceId));
  }

  @GET
  @Path("classes")
  public List<String> workloadClasses() {
    return query(queries::workloadClasses);
  }

  @GET
  @Path("classes/{workloadClass}")
  public ForecastView classForecast(@PathParam("workloadClass") String workloadClass,
      @QueryParam("at") String at) {
    Instant when = parse("at", at, Instant::parse);
    return query(() -> queries.classForecast(workloadClass, when))
        .orElseThrow(() -> error(404, "no history for workload class " + workloadClass));
  }

  @GET
  @Path("classes/{workloadClass}/slots/{slot}")
  public ForecastView classQuantiles(@PathParam("workloadClass") String workloadClass,
      @PathParam("slot") int slot, @QueryParam("date") String date) {
    LocalDate day = parse("date", date, LocalDate::parse);
    int slots = settings.grid().slotsPerDay();
    if (slot < 0 || slot >= slots) {
      throw error(400, "slot must be in 0.." + (slots - 1) + ", got " + slot);
    }
    return query(() -> queries.classQuantiles(workloadClass, day, slot))
        .orElseThrow(() -> error(404, "no history for workload class " + workloadClass));
  }

  @GET
  @Path("slotmap")
  public SlotMapView slotMap() {
    return query(queries::slotMap).orElseThrow(() -> error(404, "no slot map computed yet"));
  }

  private <T> T query(Supplier<T> query) {
    guard.require((access, caller) -> access.readFleet(caller, "forecasts"));
    try {
      return query.get();
    } catch (InvalidStateStoreException e) {
      throw error(503, "state not queryable yet: " + e.getMessage());
    }
  }

  private static <T> T parse(String name, String value, java.util.function.Function<String, T> p) {
    if (value == null || value.isBlank()) {
      throw error(400, "query parameter '" + name + "' is required");
    }
    try {
      return p.apply(value);
    } catch (DateTimeParseException e) {
      throw error(400, "query parameter '" + name + "' is malformed: " + e.getMessage());
    }
  }

  private static WebApplicationException notFound(String serviceId) {
    return error(404, "no history for service " + serviceId);
  }

  private static WebApplicationException error(int status, String message) {
    return new WebApplicationException(message, Response.status(status)
        .entity(java.util.Map.of("error", message)).type(MediaType.APPLICATION_JSON).build());
  }
}
