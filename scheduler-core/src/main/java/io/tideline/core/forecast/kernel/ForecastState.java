package io.tideline.core.forecast.kernel;

import io.tideline.core.forecast.Calibration;
import io.tideline.core.forecast.SlotHistory;
import io.tideline.core.kernel.Inbox;
import io.tideline.core.kernel.Table;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The forecast kernel's state: persistent tables (each one store table of the adapter, its
 * entity an Avro store record) and the inbox of inputs waiting for their tick. Immutable.
 *
 * @param histories per service: GPUs in use per minute by (day, slot) (F1)
 * @param classHistories per workload class (W1): the same, GPUs of the class's jobs and services
 * @param holdings per service: position and plans (F2/F3), fallback measure
 * @param calibrations per service: the forecaster's recent forecasts (issue #21)
 * @param gpus per GPU: last owner and open minutes (attribution, stale carry)
 * @param jobs per job: class, service, end
 * @param nodes per node that can lend GPUs (over-issue bound)
 * @param holidays per declared date: the holiday's name (F1 holiday flag)
 * @param clock per cluster (one row): ticks, recorded minutes, fleet figures
 * @param slotMaps per cluster (one row): the latest F4 slot map
 * @param inbox inputs waiting for the first tick after their event time
 */
public record ForecastState(
    Table<SlotHistory> histories,
    Table<SlotHistory> classHistories,
    Table<ServiceHolding> holdings,
    Table<Calibration> calibrations,
    Table<GpuTrack> gpus,
    Table<JobInfo> jobs,
    Table<NodeGpus> nodes,
    Table<String> holidays,
    Table<ForecastClock> clock,
    Table<SlotMapRecord> slotMaps,
    Inbox<ForecastInput> inbox) {

  public static final String HISTORIES = "histories";
  public static final String CLASS_HISTORIES = "class-histories";
  public static final String HOLDINGS = "holdings";
  public static final String CALIBRATIONS = "calibrations";
  public static final String GPUS = "gpus";
  public static final String JOBS = "jobs";
  public static final String NODES = "nodes";
  public static final String HOLIDAYS = "holidays";
  public static final String CLOCK = "clock";
  public static final String SLOT_MAPS = "slot-maps";
  /** The journal's name for inbox entries (id = the entry's arrival sequence). */
  public static final String INBOX = "inbox";

  /** Every table name, in the order of the components. */
  public static final List<String> TABLES = List.of(HISTORIES, CLASS_HISTORIES, HOLDINGS,
      CALIBRATIONS, GPUS, JOBS, NODES, HOLIDAYS, CLOCK, SLOT_MAPS);

  public ForecastState {
    Objects.requireNonNull(inbox, "inbox");
  }

  /** Nothing known, nothing waiting. */
  public static ForecastState empty() {
    return new ForecastState(Table.empty(HISTORIES), Table.empty(CLASS_HISTORIES),
        Table.empty(HOLDINGS), Table.empty(CALIBRATIONS), Table.empty(GPUS), Table.empty(JOBS),
        Table.empty(NODES), Table.empty(HOLIDAYS), Table.empty(CLOCK), Table.empty(SLOT_MAPS),
        Inbox.empty());
  }

  /**
   * A state restored from its tables' rows (by table name) and the waiting inputs under the
   * arrival sequences they had (by sequence); a missing table is empty. The inbox continues at
   * the sequence the last tick left ({@link ForecastClock#inboxSeq()}) or after the last waiting
   * input, so a restored state is the running one exactly.
   */
  @SuppressWarnings("unchecked")
  public static ForecastState restore(Map<String, Map<String, ?>> rows,
      java.util.SortedMap<Long, ForecastInput> waiting) {
    long start = 0;
    for (Object c : rows.getOrDefault(CLOCK, Map.of()).values()) {
      start = Math.max(start, ((ForecastClock) c).inboxSeq());
    }
    Inbox<ForecastInput> inbox = Inbox.startingAt(start);
    for (Map.Entry<Long, ForecastInput> e : waiting.entrySet()) {
      inbox = inbox.restore(e.getKey(), e.getValue());
    }
    return new ForecastState(
        Table.of(HISTORIES, (Map<String, SlotHistory>) rows.getOrDefault(HISTORIES, Map.of())),
        Table.of(CLASS_HISTORIES,
            (Map<String, SlotHistory>) rows.getOrDefault(CLASS_HISTORIES, Map.of())),
        Table.of(HOLDINGS, (Map<String, ServiceHolding>) rows.getOrDefault(HOLDINGS, Map.of())),
        Table.of(CALIBRATIONS,
            (Map<String, Calibration>) rows.getOrDefault(CALIBRATIONS, Map.of())),
        Table.of(GPUS, (Map<String, GpuTrack>) rows.getOrDefault(GPUS, Map.of())),
        Table.of(JOBS, (Map<String, JobInfo>) rows.getOrDefault(JOBS, Map.of())),
        Table.of(NODES, (Map<String, NodeGpus>) rows.getOrDefault(NODES, Map.of())),
        Table.of(HOLIDAYS, (Map<String, String>) rows.getOrDefault(HOLIDAYS, Map.of())),
        Table.of(CLOCK, (Map<String, ForecastClock>) rows.getOrDefault(CLOCK, Map.of())),
        Table.of(SLOT_MAPS, (Map<String, SlotMapRecord>) rows.getOrDefault(SLOT_MAPS, Map.of())),
        inbox);
  }

  /** The table called {@code name}. */
  public Table<?> table(String name) {
    return switch (name) {
      case HISTORIES -> histories;
      case CLASS_HISTORIES -> classHistories;
      case HOLDINGS -> holdings;
      case CALIBRATIONS -> calibrations;
      case GPUS -> gpus;
      case JOBS -> jobs;
      case NODES -> nodes;
      case HOLIDAYS -> holidays;
      case CLOCK -> clock;
      case SLOT_MAPS -> slotMaps;
      default -> throw new IllegalArgumentException("no table " + name);
    };
  }

  /**
   * Every table's rows and the inbox's entries and next sequence, as plain values: two states
   * with equal snapshots decide identically (what a restore test compares).
   */
  public Map<String, Object> snapshot() {
    Map<String, Object> out = new LinkedHashMap<>();
    for (String t : TABLES) {
      out.put(t, new LinkedHashMap<>(table(t).asMap()));
    }
    out.put(INBOX, inbox.entries());
    out.put(INBOX + ".nextSeq", inbox.nextSeq());
    return out;
  }

  /** The clock of {@code cluster} (the start before the first tick). */
  public ForecastClock clockOf(String cluster) {
    ForecastClock c = clock.get(cluster);
    return c == null ? ForecastClock.START : c;
  }

  /** What the F3 fallbacks did, summed over every service (issue #21's simulator table). */
  public ServiceHolding.Fallback fallback() {
    ServiceHolding.Fallback total = ServiceHolding.Fallback.NONE;
    for (ServiceHolding h : holdings.values()) {
      total = total.plus(h.fallback());
    }
    return total;
  }
}
