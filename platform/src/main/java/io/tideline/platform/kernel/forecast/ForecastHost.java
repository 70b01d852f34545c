package io.tideline.platform.kernel.forecast;

import io.tideline.core.forecast.Calibration;
import io.tideline.core.forecast.DayKind;
import io.tideline.core.forecast.SlotHistory;
import io.tideline.core.forecast.kernel.ForecastClock;
import io.tideline.core.forecast.kernel.ForecastEffect;
import io.tideline.core.forecast.kernel.ForecastInput;
import io.tideline.core.forecast.kernel.ForecastInput.GpuObserved;
import io.tideline.core.forecast.kernel.ForecastKernelConfig;
import io.tideline.core.forecast.kernel.ForecastState;
import io.tideline.core.forecast.kernel.GpuTrack;
import io.tideline.core.forecast.kernel.JobInfo;
import io.tideline.core.forecast.kernel.NodeGpus;
import io.tideline.core.forecast.kernel.ServiceHolding;
import io.tideline.core.forecast.kernel.SlotMapRecord;
import io.tideline.core.kernel.Tick;
import io.tideline.core.slots.SlotGrid;
import io.tideline.core.trace.TraceEntry;
import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockTick;
import io.tideline.events.GpuSample;
import io.tideline.events.GpuReading;
import io.tideline.events.GpuSampleBatch;
import io.tideline.events.Holiday;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeInventory;
import io.tideline.events.ReservationAction;
import io.tideline.events.RuleTraceEntry;
import io.tideline.events.SampleState;
import io.tideline.events.SlotClass;
import io.tideline.events.SlotClassMap;
import io.tideline.events.SlotForecast;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.intake.EventChecks;
import io.tideline.platform.telemetry.SampleBatches;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.validation.Clip;
import io.tideline.platform.validation.EventValidator;
import io.tideline.platform.validation.InputBounds;
import io.tideline.state.FallbackMeasure;
import io.tideline.state.ForecastCalibration;
import io.tideline.state.ForecastGpu;
import io.tideline.state.ForecastHistory;
import io.tideline.state.ForecastHoliday;
import io.tideline.state.ForecastHolding;
import io.tideline.state.ForecastJob;
import io.tideline.state.ForecastNode;
import io.tideline.state.ForecastSlotMap;
import io.tideline.state.GpuMinuteObserved;
import io.tideline.state.HistoryDay;
import io.tideline.state.HoldingPlan;
import io.tideline.state.PendingForecast;
import io.tideline.state.SettledForecast;
import io.tideline.state.SlotSketch;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecord;

/**
 * The forecast kernel's host (issue #14): the one mapping between the forecaster's Avro records
 * and the core {@link io.tideline.core.forecast.kernel.ForecastKernel}, run alike by
 * forecaster-svc's Streams processor and by the simulator's in-process twin. Pure: no Kafka
 * client, no store, no clock.
 *
 * <ul>
 *   <li>{@link #decode}: an input record (by topic, with its key for tombstones) checked by the
 *       platform's shared {@link EventValidator} (field bounds, event time against the record's
 *       timestamp, the one tombstone rule: the same checks every consumer of these topics
 *       applies, ADR 0012) and mapped to a kernel input, or why it is ignored, or why it is
 *       refused (a dead letter with the reason); {@link #decodeAccepted} maps again, without
 *       checking again, an input an intake accepted (the kernel's hop and inbox);
 *   <li>{@link #encode}: an effect to the records it publishes ({@code capacity.reservations},
 *       {@code forecast.slots}, {@code forecast.slotmap});
 *   <li>{@link #toStore} / {@link #fromStore}: a state table's entity to and from its Avro store
 *       record (schemas {@code io.tideline.state.*}), and {@link #restore} a whole state.
 * </ul>
 */
public final class ForecastHost {

  /** Topic of declared holidays (compacted, key = ISO date, tombstone = withdrawn). */
  public static final String FORECAST_HOLIDAYS = "forecast.holidays";
  /** Topic of the daily F4 slot map (key = cluster). */
  public static final String FORECAST_SLOTMAP = "forecast.slotmap";
  /** The topics the kernel's inputs come from, in the order the twin may feed them. */
  public static final List<String> INPUT_TOPICS = List.of(TopicCatalogue.CLUSTER_INVENTORY,
      TopicCatalogue.JOBS_SUBMITTED, TopicCatalogue.JOBS_LIFECYCLE, FORECAST_HOLIDAYS,
      TopicCatalogue.GPU_TELEMETRY, TopicCatalogue.GPU_TELEMETRY_BATCHES,
      TopicCatalogue.CLUSTER_CLOCK);

  /** Longest reason written into a dead letter (as the platform's {@code RecordIntake}). */
  static final int MAX_REASON = 2_000;

  /** The record type each input topic carries. */
  private static final Map<String, Class<?>> TYPES = Map.of(
      TopicCatalogue.GPU_TELEMETRY, GpuSample.class,
      TopicCatalogue.GPU_TELEMETRY_BATCHES, GpuSampleBatch.class,
      TopicCatalogue.CLUSTER_CLOCK, ClockTick.class,
      FORECAST_HOLIDAYS, Holiday.class,
      TopicCatalogue.JOBS_SUBMITTED, JobSubmitted.class,
      TopicCatalogue.JOBS_LIFECYCLE, JobLifecycle.class,
      TopicCatalogue.CLUSTER_INVENTORY, NodeInventory.class);

  private final ForecastKernelConfig config;
  private final EventValidator validator;

  /** A host holding inputs to the default {@link InputBounds}. */
  public ForecastHost(ForecastKernelConfig config) {
    this(config, new EventValidator(InputBounds.DEFAULTS));
  }

  /**
   * @param validator the shared input check, with the configured bounds
   *     ({@code tideline.intake.*})
   */
  public ForecastHost(ForecastKernelConfig config, EventValidator validator) {
    this.config = config;
    this.validator = validator;
  }

  public ForecastKernelConfig config() {
    return config;
  }

  /** The shared input check this host applies. */
  public EventValidator validator() {
    return validator;
  }

  // ---------------------------------------------------------------- inputs

  /** What an input record is to the kernel. */
  public sealed interface Decoded {
    /** A kernel input. */
    record Accepted(ForecastInput input) implements Decoded {}

    /**
     * A node's scrape ({@code gpu.telemetry.batches}, ADR 0040): its GPUs' observations in the
     * batch's order, exactly the inputs its GPUs' samples would each be, stepped back to back.
     */
    record AcceptedAll(List<ForecastInput> inputs) implements Decoded {}

    /** A valid record the forecaster has no use for (another cluster, a progress fact). */
    record Ignored(String why) implements Decoded {}

    /** A record the forecaster refuses: dead-letter it with this class and reason. */
    record Refused(String errorClass, String reason) implements Decoded {}
  }

  private static Decoded refused(String reason) {
    return new Decoded.Refused(DeadLetters.VALIDATION, Clip.reason(reason, MAX_REASON));
  }

  /**
   * Checks one decoded record of {@code topic} with the shared {@link EventValidator} and maps
   * it to a kernel input. Nothing the forecaster checks is its own: the field bounds, the event
   * time against the record's Kafka timestamp ({@link EventValidator#timeProblem}: a tick stamped
   * further ahead than the lead allows is refused here and never moves the clock), a holiday's
   * key, and the one tombstone rule ({@link EventValidator#tombstoneProblem}: a withdrawn holiday
   * is a tombstone, a node leaves with {@code LEFT}, an inventory tombstone is refused).
   *
   * @param key the record's key as text (the identity of a tombstone), or null
   * @param value the record ({@code null}: a tombstone)
   * @param recordTimestamp the record's Kafka timestamp, epoch millis (negative: unknown, no
   *     check of the event time against it)
   */
  public Decoded decode(String topic, String key, Object value, long recordTimestamp) {
    Class<?> expected = TYPES.get(topic);
    if (expected == null) {
      return new Decoded.Refused(DeadLetters.VALIDATION,
          "not an input of the forecaster: " + topic);
    }
    if (value != null && !expected.isInstance(value)) {
      return wrongType(topic, expected.getSimpleName(), value);
    }
    String problem;
    try {
      problem = validator.problem(topic, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
          value, recordTimestamp);
    } catch (RuntimeException e) {
      problem = "could not be checked: " + e;
    }
    if (problem != null) {
      return new Decoded.Refused(value == null && !EventValidator.tombstonesAllowed(topic)
          ? DeadLetters.DESERIALIZATION : DeadLetters.VALIDATION, Clip.reason(problem, MAX_REASON));
    }
    return decodeAccepted(topic, key, value);
  }

  /**
   * Maps a record that {@link #decode} accepted to its kernel input again, without checking it
   * again: the forecaster's kernel task reads its inputs' envelopes (and, after a restart, its
   * inbox) this way, so a change of the bounds cannot make an input accepted earlier unreadable.
   */
  public Decoded decodeAccepted(String topic, String key, Object value) {
    try {
      return switch (topic) {
        case TopicCatalogue.GPU_TELEMETRY -> value instanceof GpuSample s ? sample(s)
            : wrongType(topic, "GpuSample", value);
        case TopicCatalogue.GPU_TELEMETRY_BATCHES -> value instanceof GpuSampleBatch b ? batch(b)
            : wrongType(topic, "GpuSampleBatch", value);
        case TopicCatalogue.CLUSTER_CLOCK -> value instanceof ClockTick t ? tick(t)
            : wrongType(topic, "ClockTick", value);
        case FORECAST_HOLIDAYS -> value == null || value instanceof Holiday
            ? holiday(key, (Holiday) value) : wrongType(topic, "Holiday", value);
        case TopicCatalogue.JOBS_SUBMITTED -> value instanceof JobSubmitted j ? submission(j)
            : wrongType(topic, "JobSubmitted", value);
        case TopicCatalogue.JOBS_LIFECYCLE -> value instanceof JobLifecycle l ? lifecycle(l)
            : wrongType(topic, "JobLifecycle", value);
        case TopicCatalogue.CLUSTER_INVENTORY -> value instanceof NodeInventory n ? node(n)
            : wrongType(topic, "NodeInventory", value);
        default -> new Decoded.Refused(DeadLetters.VALIDATION,
            "not an input of the forecaster: " + topic);
      };
    } catch (RuntimeException e) {
      // only a record decode() would have refused can get here (a holiday key that is no date)
      return refused("could not be mapped to a forecast input: " + e.getMessage());
    }
  }

  private static Decoded wrongType(String topic, String expected, Object value) {
    return new Decoded.Refused(DeadLetters.DESERIALIZATION, "expected a " + expected + " on "
        + topic + ", got " + (value == null ? "an empty record (null value)"
            : value.getClass().getName()));
  }

  /**
   * A GPU sample as the kernel sees it (the six facts it uses), whether the caller decoded the
   * whole {@link GpuSample} (checked by {@link #decode}) or only those fields (the telemetry
   * stage, which checks them with the same {@link EventValidator} field by field).
   */
  public static Decoded observation(String gpuId, String nodeId, long sampledAtMillis,
      boolean stale, String serviceId, String jobId) {
    if (gpuId == null || gpuId.isBlank()) {
      return refused("GpuSample: gpuId is required"); // the validator's words for it
    }
    return new Decoded.Accepted(new GpuObserved(gpuId, nodeId,
        Instant.ofEpochMilli(sampledAtMillis), stale, serviceId, jobId));
  }

  private static Decoded sample(GpuSample s) {
    return observation(s.getGpuId(), s.getNodeId(),
        s.getSampledAt() == null ? -1 : s.getSampledAt().toEpochMilli(),
        s.getState() == SampleState.STALE, s.getServiceId(), s.getJobId());
  }

  /** A batch as the inputs of its samples, in order ({@link SampleBatches}, ADR 0040). */
  private static Decoded batch(GpuSampleBatch b) {
    List<ForecastInput> inputs = new ArrayList<>(b.getGpus().size());
    long at = b.getSampledAt() == null ? -1 : b.getSampledAt().toEpochMilli();
    // each GPU's facts read in place, not rebuilt as a GpuSample first: the same six facts
    // sample() reads from the sample SampleBatches.sample(b, g) would be (the batch's node and
    // time, the GPU's own fields)
    for (GpuReading g : b.getGpus()) {
      Decoded d = observation(g.getGpuId(), b.getNodeId(), at,
          g.getState() == SampleState.STALE, g.getServiceId(), g.getJobId());
      if (!(d instanceof Decoded.Accepted a)) {
        return d; // the validator refused it already when decode() checked the batch
      }
      inputs.add(a.input());
    }
    return new Decoded.AcceptedAll(List.copyOf(inputs));
  }

  /**
   * The kernel inputs a decoded record is, in the order they are stepped: one for an
   * {@link Decoded.Accepted}, a batch's GPUs for an {@link Decoded.AcceptedAll}, none otherwise.
   */
  public static List<ForecastInput> inputs(Decoded d) {
    if (d instanceof Decoded.Accepted a) {
      return List.of(a.input());
    }
    return d instanceof Decoded.AcceptedAll all ? all.inputs() : List.of();
  }

  private static Decoded tick(ClockTick t) {
    return new Decoded.Accepted(new ForecastInput.Ticked(new Tick(t.getTime(), t.getCluster())));
  }

  private static Decoded holiday(String key, Holiday h) {
    LocalDate date = LocalDate.parse(key); // its key is its date (checked by the validator)
    if (h == null) {
      return new Decoded.Accepted(new ForecastInput.HolidayChanged(date, "", false,
          ForecastInput.TIMELESS));
    }
    return new Decoded.Accepted(new ForecastInput.HolidayChanged(date, h.getName(), true,
        h.getDeclaredAt()));
  }

  private static Decoded submission(JobSubmitted j) {
    return new Decoded.Accepted(new ForecastInput.JobDeclared(j.getJobId(),
        j.getWorkloadClass().name(), j.getServiceId(), j.getSubmittedAt()));
  }

  private Decoded lifecycle(JobLifecycle l) {
    if (!ours(l)) {
      return new Decoded.Ignored("a job of cluster " + l.getCluster());
    }
    return switch (l.getType()) {
      case COMPLETED, FAILED, PREEMPTED ->
          new Decoded.Accepted(new ForecastInput.JobRan(l.getJobId(), l.getOccurredAt(), true));
      case STARTED, RESUMED ->
          new Decoded.Accepted(new ForecastInput.JobRan(l.getJobId(), l.getOccurredAt(), false));
      default -> new Decoded.Ignored(l.getType() + " does not change attribution");
    };
  }

  /** Whether an event is about this forecaster's cluster (a blank cluster: the default one). */
  private boolean ours(Object event) {
    return config.cluster().equals(EventChecks.clusterOf(event, config.cluster()));
  }

  private Decoded node(NodeInventory n) {
    if (!ours(n)) {
      return new Decoded.Ignored("a node of cluster " + n.getCluster());
    }
    return new Decoded.Accepted(switch (n.getChange()) {
      case JOINED, UPDATED -> new ForecastInput.NodeChanged(n.getNodeId(), n.getGpuCount(), false,
          n.getObservedAt());
      case DRAINED -> new ForecastInput.NodeChanged(n.getNodeId(), 0, false, n.getObservedAt());
      case LEFT -> new ForecastInput.NodeChanged(n.getNodeId(), 0, true, n.getObservedAt());
    });
  }

  // ---------------------------------------------------------------- effects

  /**
   * One record an effect publishes.
   *
   * @param topic the topic
   * @param key the record key
   * @param value the record
   */
  public record Emit(String topic, String key, SpecificRecord value) {}

  /**
   * The records {@code effect} publishes: none for a refusal (the adapter dead-letters the input
   * it refused, with {@link ForecastEffect.Refused#reason()}) and for a tally (meters).
   */
  public List<Emit> encode(ForecastEffect effect) {
    if (effect instanceof ForecastEffect.Reservation r) {
      var e = r.event();
      return List.of(new Emit(TopicCatalogue.CAPACITY_RESERVATIONS, e.serviceId(),
          CapacityReservation.newBuilder()
              .setReservationId(e.serviceId() + "@" + e.from() + "/" + e.type())
              .setServiceId(e.serviceId())
              .setAction(ReservationAction.valueOf(e.type().name()))
              .setGpus(e.gpus())
              .setValidFrom(e.from())
              .setValidUntil(e.until())
              .setQuantile(e.quantile().name().toLowerCase(Locale.ROOT))
              .setReason(e.reason())
              .setIssuedAt(e.issuedAt())
              .setBasis(basis(r.basis()))
              .setExpectedGpus((double) e.expectedGpus())
              .build()));
    }
    if (effect instanceof ForecastEffect.Forecast f) {
      var fc = f.forecast();
      return List.of(new Emit(TopicCatalogue.FORECAST_SLOTS, fc.serviceId(),
          SlotForecast.newBuilder()
              .setServiceId(fc.serviceId())
              .setSlotStart(fc.slotStart())
              .setSlotEnd(fc.slotEnd())
              .setHoliday(fc.dayKind() == DayKind.HOLIDAY)
              .setSlotClass(f.slotClass() == null ? SlotClass.UNKNOWN
                  : SlotClass.valueOf(f.slotClass().name()))
              .setP50(fc.p50())
              .setP90(fc.p90())
              .setP95(fc.p95())
              .setP99(fc.p99())
              .setHistoricalPeak(f.historicalPeak())
              .setSampleDays(fc.daysUsed())
              .setComputedAt(f.at())
              .setBasis(basis(fc.basis()))
              .build()));
    }
    if (effect instanceof ForecastEffect.SlotMapComputed m) {
      return List.of(new Emit(FORECAST_SLOTMAP, m.map().cluster(), slotMapEvent(m.map())));
    }
    return List.of();
  }

  private static io.tideline.events.ForecastBasis basis(io.tideline.core.forecast.ForecastBasis b) {
    return io.tideline.events.ForecastBasis.valueOf(b.name());
  }

  /** The slot map as its {@code forecast.slotmap} event. */
  public static SlotClassMap slotMapEvent(SlotMapRecord m) {
    Map<String, Double> centroids = new TreeMap<>();
    m.centroids().forEach((c, v) -> centroids.put(c.name(), v));
    return SlotClassMap.newBuilder()
        .setCluster(m.cluster())
        .setDay(m.day().toString())
        .setZone(m.zone())
        .setSlotMinutes(m.slotMinutes())
        .setClasses(m.classes().stream().map(c -> SlotClass.valueOf(c.name())).toList())
        .setProfile(m.profile())
        .setCentroids(centroids)
        .setServices(m.services())
        .setComputedAt(m.computedAt())
        .setTrace(m.trace().stream().map(ForecastHost::trace).toList())
        .build();
  }

  private static RuleTraceEntry trace(TraceEntry t) {
    return RuleTraceEntry.newBuilder().setSubject(t.subject()).setRule(t.rule())
        .setOutcome(t.outcome()).setDetail(t.detail()).build();
  }

  private static TraceEntry trace(RuleTraceEntry t) {
    return new TraceEntry(t.getSubject(), t.getRule(), t.getOutcome(), t.getDetail());
  }

  // ---------------------------------------------------------------- state

  /** The Avro store record of {@code entity}, an entity of table {@code table}. */
  public SpecificRecord toStore(String table, Object entity) {
    return switch (table) {
      case ForecastState.HISTORIES, ForecastState.CLASS_HISTORIES -> history((SlotHistory) entity);
      case ForecastState.HOLDINGS -> holding((ServiceHolding) entity);
      case ForecastState.CALIBRATIONS -> calibration((Calibration) entity);
      case ForecastState.GPUS -> gpu((GpuTrack) entity);
      case ForecastState.JOBS -> {
        JobInfo j = (JobInfo) entity;
        yield ForecastJob.newBuilder().setWorkloadClass(j.workloadClass())
            .setServiceId(j.serviceId()).setEndedAt(j.endedAt()).build();
      }
      case ForecastState.NODES -> ForecastNode.newBuilder().setGpus(((NodeGpus) entity).gpus())
          .build();
      case ForecastState.HOLIDAYS -> ForecastHoliday.newBuilder().setName((String) entity).build();
      case ForecastState.CLOCK -> {
        ForecastClock c = (ForecastClock) entity;
        yield io.tideline.state.ForecastClock.newBuilder().setLastTick(c.lastTick())
            .setRecordedBelow(c.recordedBelow()).setSlotMapDay(c.slotMapDay())
            .setFleetIdle(c.fleetIdle()).setFleetInUse(c.fleetInUse())
            .setInboxSeq(c.inboxSeq()).build();
      }
      case ForecastState.SLOT_MAPS -> slotMap((SlotMapRecord) entity);
      default -> throw new IllegalArgumentException("no table " + table);
    };
  }

  /** The entity of table {@code table} that {@code record} stores. */
  public Object fromStore(String table, SpecificRecord record) {
    return switch (table) {
      case ForecastState.HISTORIES, ForecastState.CLASS_HISTORIES ->
          history((ForecastHistory) record);
      case ForecastState.HOLDINGS -> holding((ForecastHolding) record);
      case ForecastState.CALIBRATIONS -> calibration((ForecastCalibration) record);
      case ForecastState.GPUS -> gpu((ForecastGpu) record);
      case ForecastState.JOBS -> {
        ForecastJob j = (ForecastJob) record;
        yield new JobInfo(j.getWorkloadClass(), j.getServiceId(), j.getEndedAt());
      }
      case ForecastState.NODES -> new NodeGpus(((ForecastNode) record).getGpus());
      case ForecastState.HOLIDAYS -> ((ForecastHoliday) record).getName();
      case ForecastState.CLOCK -> {
        io.tideline.state.ForecastClock c = (io.tideline.state.ForecastClock) record;
        yield new ForecastClock(c.getLastTick(), c.getRecordedBelow(), c.getSlotMapDay(),
            c.getFleetIdle(), c.getFleetInUse(), c.getInboxSeq());
      }
      case ForecastState.SLOT_MAPS -> slotMap((ForecastSlotMap) record);
      default -> throw new IllegalArgumentException("no table " + table);
    };
  }

  /**
   * The state the stores describe: every table's store records by id, and the waiting inputs by
   * their arrival sequence (decoded from their envelopes with {@link #decode}).
   */
  public ForecastState restore(Map<String, Map<String, SpecificRecord>> tables,
      SortedMap<Long, ForecastInput> waiting) {
    Map<String, Map<String, ?>> rows = new LinkedHashMap<>();
    tables.forEach((table, records) -> {
      Map<String, Object> entities = new TreeMap<>();
      records.forEach((id, r) -> entities.put(id, fromStore(table, r)));
      rows.put(table, entities);
    });
    return ForecastState.restore(rows, waiting);
  }

  private static ForecastHistory history(SlotHistory h) {
    List<HistoryDay> days = new ArrayList<>();
    for (SlotHistory.StoredDay d : h.storedDays()) {
      List<SlotSketch> slots = new ArrayList<>();
      d.sketches().forEach((slot, bytes) -> slots.add(SlotSketch.newBuilder().setSlot(slot)
          .setSketch(ByteBuffer.wrap(bytes)).build()));
      days.add(HistoryDay.newBuilder().setDate(d.date()).setMax(d.max()).setSlots(slots).build());
    }
    return ForecastHistory.newBuilder().setSeries(h.serviceId())
        .setZone(h.grid().zone().getId()).setSlotSeconds(h.grid().slotLength().toSeconds())
        .setRelativeAccuracy(h.relativeAccuracy()).setDays(days).build();
  }

  private static SlotHistory history(ForecastHistory r) {
    List<SlotHistory.StoredDay> days = new ArrayList<>();
    for (HistoryDay d : r.getDays()) {
      TreeMap<Integer, byte[]> sketches = new TreeMap<>();
      for (SlotSketch s : d.getSlots()) {
        ByteBuffer b = s.getSketch().duplicate();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        sketches.put(s.getSlot(), bytes);
      }
      days.add(new SlotHistory.StoredDay(d.getDate(), d.getMax(), sketches));
    }
    return SlotHistory.restore(r.getSeries(), new SlotGrid(Duration.ofSeconds(r.getSlotSeconds()),
        ZoneId.of(r.getZone())), r.getRelativeAccuracy(), days);
  }

  private static ForecastHolding holding(ServiceHolding h) {
    ServiceHolding.Fallback f = h.fallback();
    return ForecastHolding.newBuilder().setInUse(h.inUse()).setInUseMinute(h.inUseMinute())
        .setOverIssued(h.overIssued()).setOverIssuedUntil(h.overIssuedUntil())
        .setPlans(h.plans().stream().map(p -> HoldingPlan.newBuilder().setStart(p.start())
            .setEnd(p.end()).setHeld(p.held()).setReserved(p.reserved())
            .setReleased(p.released()).setBasis(basis(p.basis())).build()).toList())
        .setFallback(FallbackMeasure.newBuilder().setOverIssues(f.overIssues())
            .setOverIssuedGpus(f.overIssuedGpus()).setUncovered(f.uncovered())
            .setUncoveredGpus(f.uncoveredGpus()).setReleases(f.releases())
            .setReleasedGpus(f.releasedGpus()).build())
        .build();
  }

  private static ServiceHolding holding(ForecastHolding r) {
    FallbackMeasure f = r.getFallback();
    return new ServiceHolding(r.getInUse(), r.getInUseMinute(), r.getOverIssued(),
        r.getOverIssuedUntil(), r.getPlans().stream().map(p -> new ServiceHolding.Plan(
            p.getStart(), p.getEnd(), p.getHeld(), p.getReserved(), p.getReleased(),
            coreBasis(p.getBasis()))).toList(),
        new ServiceHolding.Fallback(f.getOverIssues(), f.getOverIssuedGpus(), f.getUncovered(),
            f.getUncoveredGpus(), f.getReleases(), f.getReleasedGpus()));
  }

  private static io.tideline.core.forecast.ForecastBasis coreBasis(
      io.tideline.events.ForecastBasis b) {
    return b == io.tideline.events.ForecastBasis.UNKNOWN
        ? io.tideline.core.forecast.ForecastBasis.NO_HISTORY
        : io.tideline.core.forecast.ForecastBasis.valueOf(b.name());
  }

  private static ForecastCalibration calibration(Calibration c) {
    return ForecastCalibration.newBuilder()
        .setPending(c.pending().stream().map(p -> PendingForecast.newBuilder()
            .setSlotStart(p.slotStart()).setSlotEnd(p.slotEnd()).setP50(p.p50()).setP90(p.p90())
            .build()).toList())
        .setSettled(c.settled().stream().map(s -> SettledForecast.newBuilder()
            .setSlotStart(s.slotStart()).setP50(s.p50()).setP90(s.p90()).setActual(s.actual())
            .build()).toList())
        .setShiftAt(c.shiftAt()).setRunStart(c.runStart()).setRunSide(c.runSide()).build();
  }

  private static Calibration calibration(ForecastCalibration r) {
    return new Calibration(
        r.getPending().stream().map(p -> new Calibration.Pending(p.getSlotStart(),
            p.getSlotEnd(), p.getP50(), p.getP90())).toList(),
        r.getSettled().stream().map(s -> new Calibration.Settled(s.getSlotStart(), s.getP50(),
            s.getP90(), s.getActual())).toList(),
        r.getShiftAt(), r.getRunStart(), r.getRunSide());
  }

  private static ForecastGpu gpu(GpuTrack t) {
    return ForecastGpu.newBuilder().setNodeId(t.nodeId()).setLastOkMinute(t.lastOkMinute())
        .setLastServiceId(t.lastServiceId()).setLastJobId(t.lastJobId())
        .setLastSeenMinute(t.lastSeenMinute())
        .setOpen(t.open().stream().map(o -> GpuMinuteObserved.newBuilder().setGpuId(o.gpuId())
            .setNodeId(o.nodeId()).setSampledAt(o.sampledAt()).setStale(o.stale())
            .setServiceId(o.serviceId()).setJobId(o.jobId()).build()).toList())
        .build();
  }

  private static GpuTrack gpu(ForecastGpu r) {
    return new GpuTrack(r.getNodeId(), r.getLastOkMinute(), r.getLastServiceId(),
        r.getLastJobId(), r.getLastSeenMinute(), r.getOpen().stream().map(o -> new GpuObserved(
            o.getGpuId(), o.getNodeId(), o.getSampledAt(), o.getStale(), o.getServiceId(),
            o.getJobId())).toList());
  }

  private static ForecastSlotMap slotMap(SlotMapRecord m) {
    Map<String, Double> centroids = new TreeMap<>();
    m.centroids().forEach((c, v) -> centroids.put(c.name(), v));
    return ForecastSlotMap.newBuilder().setCluster(m.cluster()).setDay(m.day())
        .setZone(m.zone()).setSlotMinutes(m.slotMinutes())
        .setClasses(m.classes().stream().map(c -> SlotClass.valueOf(c.name())).toList())
        .setProfile(m.profile()).setCentroids(centroids).setServices(m.services())
        .setComputedAt(m.computedAt())
        .setTrace(m.trace().stream().map(ForecastHost::trace).toList()).build();
  }

  private static SlotMapRecord slotMap(ForecastSlotMap r) {
    TreeMap<io.tideline.core.slots.SlotClass, Double> centroids = new TreeMap<>();
    r.getCentroids().forEach((c, v) -> centroids.put(
        io.tideline.core.slots.SlotClass.valueOf(c.toString()), v));
    return new SlotMapRecord(r.getCluster(), r.getDay(), r.getZone(), r.getSlotMinutes(),
        r.getClasses().stream().map(c -> io.tideline.core.slots.SlotClass.valueOf(c.name()))
            .toList(),
        new ArrayList<>(r.getProfile()), centroids, r.getServices(), r.getComputedAt(),
        r.getTrace().stream().map(ForecastHost::trace).toList());
  }
}
