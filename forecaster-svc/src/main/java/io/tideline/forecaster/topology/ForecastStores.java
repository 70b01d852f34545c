package io.tideline.forecaster.topology;

/**
 * Names of the topology's state stores. Each is a persistent RocksDB store with a changelog
 * topic ({@code <application.id>-<name>-changelog}), so a new instance or a fresh state
 * directory restores the same state.
 */
public final class ForecastStores {

  /** Per-service slot history: service id -> {@code SlotHistory.toBytes()} (F1). */
  public static final String SLOT_HISTORY = "forecaster-slot-history";
  /** Per-service reservation position: service id -> {@link ServiceState} bytes (F2/F3). */
  public static final String POSITIONS = "forecaster-positions";
  /** Declared holidays from the topic: ISO date -> name (F1 holiday flag). */
  public static final String HOLIDAYS = "forecaster-holidays";
  /** The latest slot map: cluster -> {@code SlotClassMap} single-object Avro bytes (F4). */
  public static final String SLOT_MAP = "forecaster-slot-map";
  /** Per-service stage clock and fleet figures: name -> long. */
  public static final String PLANNER_CLOCK = "forecaster-planner-clock";
  /** Minute counts awaiting the minute grace: "minute|service" -> summed counts. */
  public static final String SERVICE_MINUTES = "forecaster-service-minutes";
  /** Per workload class (W1) slot history: class -> {@code SlotHistory.toBytes()}. */
  public static final String CLASS_HISTORY = "forecaster-class-history";
  /** Jobs: job id -> workload class, service and end (jobs.submitted + jobs.lifecycle). */
  public static final String JOBS = "forecaster-jobs";
  /** Nodes of the inventory: node id -> GPUs that can take work (cluster.inventory). */
  public static final String NODES = "forecaster-nodes";
  /**
   * Telemetry stage: gpu id -> last OK owner and the open minutes the GPU is counted in (the
   * minute counts are derived from these when a minute closes).
   */
  public static final String GPUS = "forecaster-gpus";
  /** Telemetry stage: this task's event-time watermark and closed-minute mark. */
  public static final String TELEMETRY_CLOCK = "forecaster-telemetry-clock";

  private ForecastStores() {}

  /** A sortable store key for a minute and a service: fixed-width minute first. */
  static String minuteKey(long minute, String service) {
    return minuteBound(minute) + "|" + service;
  }

  /**
   * A bound below every key of {@code minute} and above every key of earlier minutes: an
   * inclusive range scan up to it returns exactly the minutes before {@code minute}.
   */
  static String minuteBound(long minute) {
    String digits = Long.toString(minute); // epoch minutes: positive, 8 digits until 2160
    return "000000000000".substring(Math.min(12, digits.length())) + digits;
  }
}
