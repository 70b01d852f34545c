package io.tideline.forecaster.topology;

import io.tideline.core.forecast.ActiveReservation;
import io.tideline.core.forecast.DayKind;
import io.tideline.core.forecast.ForecastBasis;
import io.tideline.core.forecast.HolidayCalendar;
import io.tideline.core.forecast.ReservationDecision;
import io.tideline.core.forecast.ReservationEvent;
import io.tideline.core.forecast.ReservationPlanner;
import io.tideline.core.forecast.ServicePosition;
import io.tideline.core.forecast.SlotForecaster;
import io.tideline.core.forecast.SlotHistory;
import io.tideline.core.slots.SlotClassifier;
import io.tideline.core.slots.SlotGrid;
import io.tideline.core.slots.SlotMap;
import io.tideline.events.CapacityReservation;
import io.tideline.events.ReservationAction;
import io.tideline.events.RuleTraceEntry;
import io.tideline.events.SlotClass;
import io.tideline.events.SlotClassMap;
import io.tideline.forecaster.config.ForecastSettings;
import io.tideline.forecaster.topology.ServiceInput.HolidayChange;
import io.tideline.forecaster.topology.ServiceInput.JobChange;
import io.tideline.forecaster.topology.ServiceInput.NodeChange;
import io.tideline.forecaster.topology.ServiceInput.MinuteCount;
import io.tideline.forecaster.topology.ServiceInput.Tick;
import io.tideline.forecaster.topology.ServiceState.Plan;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The per-service stage: records each service's GPUs-in-use minutes into its {@link SlotHistory}
 * and, on every clock tick, asks the core {@link ReservationPlanner} what to reserve, release or
 * over-issue. Time comes only from the ticks ({@code now} = the tick's cluster time), so a replay
 * of the same input reproduces the same events (O2).
 *
 * <p>It also keeps what the other inputs say: holidays, jobs (workload class and service from
 * jobs.submitted, end from jobs.lifecycle: per-class series and the end of a stale carry) and
 * the fleet's GPUs per node (cluster.inventory: the bound of over-issue).
 *
 * <p>On each tick, in order: (1) minutes whose grace has passed are recorded, (2) on the first
 * tick of a local day the histories are pruned and the F4 slot map re-computed and published,
 * (3) for every service the forecast of the slot starting {@code leadTime} from now is made and
 * the planner run; at a reserve instant the forecast is also published on
 * {@code forecast.slots}.
 */
final class ServicePlanner implements Processor<String, ServiceInput, String, SpecificRecord> {

  private static final long MINUTE = 60_000L;
  static final String LAST_TICK = "lastTick";
  static final String FINALIZED_BELOW = "finalizedBelow";
  static final String SLOT_MAP_DAY = "slotMapDay";
  static final String FLEET_IDLE = "fleetIdleGpus";
  static final String FLEET_IN_USE = "fleetInUseGpus";
  static final String FLEET_GPUS = "fleetGpus";
  /** Workload class of the GPUs of online services (W1). */
  static final String ONLINE = "ONLINE_INFERENCE";
  /** Workload class of a job the forecaster has not seen submitted. */
  static final String UNKNOWN_CLASS = "UNKNOWN";

  private final ForecastSettings settings;
  private final ForecastMeters meters;
  private final SlotGrid grid;
  private final SlotForecaster forecaster;
  private final ReservationPlanner planner;
  private final SlotClassifier classifier;
  private ProcessorContext<String, SpecificRecord> context;
  private KeyValueStore<String, byte[]> histories;
  private KeyValueStore<String, byte[]> positions;
  private KeyValueStore<String, String> holidays;
  private KeyValueStore<String, byte[]> slotMaps;
  private KeyValueStore<String, Long> clock;
  private KeyValueStore<String, byte[]> minutes;
  private KeyValueStore<String, byte[]> classHistories;
  private KeyValueStore<String, byte[]> jobs;
  private KeyValueStore<String, Long> nodes;

  ServicePlanner(ForecastSettings settings, ForecastMeters meters) {
    this.settings = settings;
    this.meters = meters;
    this.grid = settings.grid();
    this.forecaster = new SlotForecaster(settings.forecast());
    this.planner = new ReservationPlanner(settings.reservation(), grid);
    this.classifier = new SlotClassifier(settings.slotClassifier());
  }

  @Override
  public void init(ProcessorContext<String, SpecificRecord> context) {
    this.context = context;
    histories = context.getStateStore(ForecastStores.SLOT_HISTORY);
    positions = context.getStateStore(ForecastStores.POSITIONS);
    holidays = context.getStateStore(ForecastStores.HOLIDAYS);
    slotMaps = context.getStateStore(ForecastStores.SLOT_MAP);
    clock = context.getStateStore(ForecastStores.PLANNER_CLOCK);
    minutes = context.getStateStore(ForecastStores.SERVICE_MINUTES);
    classHistories = context.getStateStore(ForecastStores.CLASS_HISTORY);
    jobs = context.getStateStore(ForecastStores.JOBS);
    nodes = context.getStateStore(ForecastStores.NODES);
  }

  @Override
  public void process(Record<String, ServiceInput> record) {
    ServiceInput input = record.value();
    if (input instanceof MinuteCount m) {
      onMinute(m);
    } else if (input instanceof HolidayChange h) {
      if (h.holiday()) {
        holidays.put(h.date().toString(), h.name());
      } else {
        holidays.delete(h.date().toString());
      }
    } else if (input instanceof Tick t) {
      onTick(t);
    } else if (input instanceof JobChange j) {
      onJob(j);
    } else if (input instanceof NodeChange n) {
      onNode(n);
    }
  }

  /** Adds one telemetry task's count to the minute's total, unless the minute is recorded. */
  private void onMinute(MinuteCount m) {
    Long finalizedBelow = clock.get(FINALIZED_BELOW);
    if (finalizedBelow != null && m.minute() < finalizedBelow) {
      meters.minute("late");
      return;
    }
    String key = ForecastStores.minuteKey(m.minute(), m.key());
    MinuteCount sum = decodeMinute(m.key(), m.minute(), minutes.get(key)).plus(m);
    minutes.put(key, encodeMinute(sum));
  }

  private void onTick(Tick tick) {
    if (!settings.cluster().equals(tick.cluster())) {
      meters.tick("other_cluster");
      return;
    }
    Long last = clock.get(LAST_TICK);
    if (last != null && tick.time() <= last) {
      meters.tick("stale");
      return;
    }
    clock.put(LAST_TICK, tick.time());
    Instant now = Instant.ofEpochMilli(tick.time());
    HolidayCalendar calendar = calendar();

    // 1. Record the minutes whose grace has passed.
    recordMinutes(now);

    // 2. First tick of a local day: prune, re-classify the slots (F4), publish the map.
    LocalDate today = grid.date(now);
    Long mapDay = clock.get(SLOT_MAP_DAY);
    if (mapDay == null || mapDay < today.toEpochDay()) {
      publishSlotMap(now, today, calendar);
      pruneClassesAndJobs(now, today, calendar);
      clock.put(SLOT_MAP_DAY, today.toEpochDay());
    }

    // 3. Every service: forecast the slot leadTime ahead, plan, publish.
    SlotClassMap slotMap = currentSlotMap();
    List<KeyValue<String, byte[]>> services = new ArrayList<>();
    try (KeyValueIterator<String, byte[]> it = histories.all()) {
      it.forEachRemaining(services::add);
    }
    int[] pool = {Math.max(0, poolIdle() - outstandingOverIssue(now))};
    for (KeyValue<String, byte[]> entry : services) {
      pool[0] -= planService(now, today, entry.key, SlotHistory.fromBytes(entry.value), calendar,
          slotMap, Math.max(0, pool[0]));
    }
    meters.tick("processed");
  }

  /**
   * Step 1: moves every minute older than {@code now - minuteGrace} into the histories.
   *
   * <p>(a) Sum each minute's counts per bucket, dropping carried GPUs whose job ended before
   * the minute (jobs.lifecycle ends the stale carry); (b) a service minute with an unknown GPU
   * is skipped (missing, not low), others are recorded in the service's history; (c) every
   * bucket also adds to its workload class's minute (services: {@code ONLINE_INFERENCE}, jobs:
   * their class from jobs.submitted, else {@code UNKNOWN}), recorded in the class histories;
   * (d) the latest minute's idle and in-use totals bound the over-issue pool.
   */
  private void recordMinutes(Instant now) {
    long below = Math.floorDiv(now.toEpochMilli() - settings.minuteGrace().toMillis(), MINUTE);
    Long done = clock.get(FINALIZED_BELOW);
    if (done != null && below <= done) {
      return;
    }
    List<KeyValue<String, byte[]>> due = new ArrayList<>();
    try (KeyValueIterator<String, byte[]> it =
        minutes.range(null, ForecastStores.minuteBound(below))) {
      it.forEachRemaining(due::add);
    }
    // (a) minute -> bucket -> summed count; keys sort by minute, so the maps stay in order.
    TreeMap<Long, Map<String, MinuteCount>> byMinute = new TreeMap<>();
    Map<String, JobInfo> jobInfos = new java.util.HashMap<>();
    for (KeyValue<String, byte[]> entry : due) {
      int bar = entry.key.indexOf('|');
      long minute = Long.parseLong(entry.key.substring(0, bar));
      MinuteCount count = decodeMinute(entry.key.substring(bar + 1), minute, entry.value);
      minutes.delete(entry.key);
      if (count.carried() > 0 && !count.jobId().isEmpty()) {
        JobInfo job = jobInfos.computeIfAbsent(count.jobId(), this::loadJob);
        if (job.endedAt() != Long.MIN_VALUE && job.endedAt() <= minute * MINUTE) {
          meters.minute("carry_ended");
          count = new MinuteCount(count.serviceId(), "", minute, count.counted(), 0,
              count.unknown());
        }
      }
      byMinute.computeIfAbsent(minute, m -> new LinkedHashMap<>())
          .merge(count.serviceId(), new MinuteCount(count.serviceId(), "", minute,
              count.counted(), count.carried(), count.unknown()), MinuteCount::plus);
    }
    Map<String, SlotHistory> touched = new LinkedHashMap<>();
    Map<String, SlotHistory> classesTouched = new LinkedHashMap<>();
    Map<String, ServiceState> states = new LinkedHashMap<>();
    for (Map.Entry<Long, Map<String, MinuteCount>> minuteEntry : byMinute.entrySet()) {
      long minute = minuteEntry.getKey();
      Instant at = Instant.ofEpochMilli(minute * MINUTE);
      Map<String, int[]> perClass = new TreeMap<>(); // class -> {gpus, unknown}
      long idle = 0;
      long inUse = 0;
      for (MinuteCount count : minuteEntry.getValue().values()) {
        String bucket = count.serviceId();
        if (ServiceInput.IDLE.equals(bucket)) {
          idle = count.gpus();
          continue;
        }
        inUse += count.gpus() + count.unknown();
        String workloadClass = bucket.startsWith(ServiceInput.JOB_PREFIX)
            ? jobInfos.computeIfAbsent(bucket.substring(ServiceInput.JOB_PREFIX.length()),
                this::loadJob).workloadClass()
            : ONLINE;
        int[] c = perClass.computeIfAbsent(workloadClass, k -> new int[2]);
        c[0] += count.gpus();
        c[1] += count.unknown();
        if (bucket.startsWith(ServiceInput.JOB_PREFIX)) {
          continue;
        }
        // (b) the service's minute.
        if (count.unknown() > 0) {
          meters.minute("skipped_unknown");
          continue;
        }
        touched.computeIfAbsent(bucket, this::loadHistory).record(at, count.gpus());
        ServiceState state = states.computeIfAbsent(bucket, this::loadState);
        state.inUse = count.gpus();
        state.inUseMinute = minute;
        meters.minute("recorded");
      }
      // (c) the workload classes' minute (a class with an unknown GPU is skipped too).
      perClass.forEach((workloadClass, c) -> {
        if (c[1] == 0) {
          classesTouched.computeIfAbsent(workloadClass, this::loadClassHistory).record(at, c[0]);
        }
      });
      // (d) minutes come in order: the latest wins.
      clock.put(FLEET_IDLE, idle);
      clock.put(FLEET_IN_USE, inUse);
    }
    touched.forEach((service, history) -> histories.put(service, history.toBytes()));
    classesTouched.forEach((c, history) -> classHistories.put(c, history.toBytes()));
    states.forEach((service, state) -> positions.put(service, state.toBytes()));
    clock.put(FINALIZED_BELOW, below);
  }

  /**
   * GPUs the shared pool can lend (F3 over-issue bound): with an inventory, the fleet's GPUs
   * less those in use (or of unknown use) in the latest recorded minute — GPUs that report
   * nothing are idle too; without one, the idle GPUs telemetry saw.
   */
  private int poolIdle() {
    Long fleet = clock.get(FLEET_GPUS);
    Long inUse = clock.get(FLEET_IN_USE);
    Long idle = clock.get(FLEET_IDLE);
    long pool = fleet != null && fleet > 0
        ? Math.max(0, fleet - (inUse == null ? 0 : inUse))
        : idle == null ? 0 : idle;
    return (int) Math.min(Integer.MAX_VALUE, pool);
  }

  /**
   * GPUs over-issued and not yet expired, over all services: each grant is taken to draw from
   * the idle pool until it expires, so grants on later ticks (and to other services) never add
   * up to more than the pool.
   */
  private int outstandingOverIssue(Instant now) {
    int total = 0;
    try (KeyValueIterator<String, byte[]> it = positions.all()) {
      while (it.hasNext()) {
        ServiceState state = ServiceState.fromBytes(it.next().value);
        state.expire(now.toEpochMilli());
        total += state.overIssued;
      }
    }
    return total;
  }

  /** A job as the forecaster knows it (class and service from jobs.submitted). */
  record JobInfo(String workloadClass, String serviceId, long endedAt) {

    static final JobInfo UNKNOWN_JOB = new JobInfo(UNKNOWN_CLASS, "", Long.MIN_VALUE);

    byte[] toBytes() {
      byte[] c = workloadClass.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      byte[] s = serviceId.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      return ByteBuffer.allocate(16 + c.length + s.length).putLong(endedAt).putInt(c.length)
          .put(c).putInt(s.length).put(s).array();
    }

    static JobInfo fromBytes(byte[] bytes) {
      if (bytes == null) {
        return UNKNOWN_JOB;
      }
      ByteBuffer b = ByteBuffer.wrap(bytes);
      long ended = b.getLong();
      byte[] c = new byte[b.getInt()];
      b.get(c);
      byte[] s = new byte[b.getInt()];
      b.get(s);
      return new JobInfo(new String(c, java.nio.charset.StandardCharsets.UTF_8),
          new String(s, java.nio.charset.StandardCharsets.UTF_8), ended);
    }
  }

  private JobInfo loadJob(String jobId) {
    return JobInfo.fromBytes(jobs.get(jobId));
  }

  /** Merges a submission or lifecycle fact into the job's record. */
  private void onJob(JobChange change) {
    JobInfo known = loadJob(change.jobId());
    boolean submitted = !change.workloadClass().isEmpty();
    JobInfo updated = new JobInfo(
        submitted ? change.workloadClass() : known.workloadClass(),
        submitted ? change.serviceId() : known.serviceId(),
        submitted ? known.endedAt() : change.endedAt());
    jobs.put(change.jobId(), updated.toBytes());
  }

  /** Keeps each node's lendable GPUs and the fleet total (cluster.inventory). */
  private void onNode(NodeChange change) {
    Long before = nodes.get(change.nodeId());
    if (change.gpus() > 0) {
      nodes.put(change.nodeId(), (long) change.gpus());
    } else {
      nodes.delete(change.nodeId());
    }
    Long fleet = clock.get(FLEET_GPUS);
    clock.put(FLEET_GPUS, (fleet == null ? 0 : fleet) - (before == null ? 0 : before)
        + change.gpus());
  }

  /**
   * Step 2 (continued): prune the workload-class histories like the services'; forget jobs that
   * ended more than a day ago (a carry never outlives its job by more than minutes).
   */
  private void pruneClassesAndJobs(Instant now, LocalDate today, HolidayCalendar calendar) {
    List<KeyValue<String, byte[]>> all = new ArrayList<>();
    try (KeyValueIterator<String, byte[]> it = classHistories.all()) {
      it.forEachRemaining(all::add);
    }
    for (KeyValue<String, byte[]> entry : all) {
      SlotHistory history = SlotHistory.fromBytes(entry.value);
      history.prune(today, calendar, settings.forecast());
      classHistories.put(entry.key, history.toBytes());
    }
    long forgetBefore = now.minus(java.time.Duration.ofDays(1)).toEpochMilli();
    List<String> ended = new ArrayList<>();
    try (KeyValueIterator<String, byte[]> it = jobs.all()) {
      it.forEachRemaining(kv -> {
        long endedAt = JobInfo.fromBytes(kv.value).endedAt();
        if (endedAt != Long.MIN_VALUE && endedAt < forgetBefore) {
          ended.add(kv.key);
        }
      });
    }
    ended.forEach(jobs::delete);
  }

  /** Step 2: prune each history, cluster the fleet profile, keep and publish the slot map. */
  private void publishSlotMap(Instant now, LocalDate today, HolidayCalendar calendar) {
    double[] profile = new double[grid.slotsPerDay()];
    List<KeyValue<String, byte[]>> all = new ArrayList<>();
    try (KeyValueIterator<String, byte[]> it = histories.all()) {
      it.forEachRemaining(all::add);
    }
    for (KeyValue<String, byte[]> entry : all) {
      SlotHistory history = SlotHistory.fromBytes(entry.value);
      history.prune(today, calendar, settings.forecast());
      histories.put(entry.key, history.toBytes());
      double[] mean = history.meanProfile(today, settings.forecast().windowDays(), calendar);
      for (int i = 0; i < profile.length; i++) {
        profile[i] += mean[i];
      }
    }
    SlotMap map = classifier.classify(grid, profile);
    Map<String, Double> centroids = new TreeMap<>();
    map.centroids().forEach((c, v) -> centroids.put(c.name(), v));
    SlotClassMap event = SlotClassMap.newBuilder()
        .setCluster(settings.cluster())
        .setDay(today.toString())
        .setZone(settings.zone().getId())
        .setSlotMinutes((int) grid.slotLength().toMinutes())
        .setClasses(map.classes().stream().map(c -> SlotClass.valueOf(c.name())).toList())
        .setProfile(Arrays.stream(profile).boxed().toList())
        .setCentroids(centroids)
        .setServices(all.size())
        .setComputedAt(now)
        .setTrace(map.trace().stream().map(t -> RuleTraceEntry.newBuilder()
            .setSubject(t.subject()).setRule(t.rule()).setOutcome(t.outcome())
            .setDetail(t.detail()).build()).toList())
        .build();
    slotMaps.put(settings.cluster(), StoredSlotMaps.encode(event));
    context.forward(new Record<>(settings.cluster(), event, now.toEpochMilli()));
  }

  /** Step 3 for one service; returns the GPUs it over-issued (drawn from the pool). */
  private int planService(Instant now, LocalDate today, String service, SlotHistory history,
      HolidayCalendar calendar, SlotClassMap slotMap, int poolIdle) {
    // 3a. The forecast of the slot starting leadTime from now (or the next one).
    byte[] before = positions.get(service);
    ServiceState state = ServiceState.fromBytes(before);
    state.expire(now.toEpochMilli());
    Instant leadAt = now.plus(settings.reservation().leadTime());
    boolean reserveInstant = grid.isSlotStart(leadAt);
    Instant slot = reserveInstant ? leadAt : grid.slotEndOf(leadAt);
    io.tideline.core.forecast.SlotForecast forecast =
        forecaster.forecast(history, slot, calendar, now);

    // 3b. The position: what the service holds on its own account now, per the slot's plan.
    Plan current = state.planAt(now.toEpochMilli());
    int held = current == null ? state.inUse : current.held() - current.released();
    ActiveReservation reservation = null;
    if (current != null && current.reserved() - current.released() > 0) {
      int remaining = current.reserved() - current.released();
      int base = current.held() - current.reserved();
      int used = Math.min(remaining, Math.max(0, state.inUse - base));
      reservation = new ActiveReservation(remaining, Instant.ofEpochMilli(current.start()),
          Instant.ofEpochMilli(current.end()), used);
    }
    ServicePosition position = new ServicePosition(service, Math.max(0, held), state.inUse,
        state.overIssued, poolIdle, reservation);
    int carried = reservation != null && !reservation.until().isAfter(slot)
        ? reservation.gpus() : 0;
    int nextBase = Math.max(0, held - carried);

    // 3c. Ask the core planner; apply its events to the position and publish them.
    ReservationDecision decision = planner.plan(now, forecast, position);
    boolean reserved = false;
    int drawn = 0;
    for (ReservationEvent event : decision.events()) {
      switch (event.type()) {
        case RESERVE -> {
          state.putPlan(new Plan(event.from().toEpochMilli(), event.until().toEpochMilli(),
              nextBase + event.gpus(), event.gpus(), 0));
          reserved = true;
        }
        case RELEASE -> state.replace(current, current.release(event.gpus()));
        case OVER_ISSUE -> {
          drawn += event.gpus();
          state.overIssued += event.gpus();
          state.overIssuedUntil = event.until().toEpochMilli();
        }
      }
      meters.reservation(event.type().name());
      context.forward(new Record<>(service, toEvent(event), now.toEpochMilli()));
    }

    // 3d. At a reserve instant: plan the slot even without a reservation, publish the forecast.
    if (reserveInstant) {
      if (!reserved && forecast.basis() != ForecastBasis.NO_HISTORY) {
        state.putPlan(new Plan(slot.toEpochMilli(), forecast.slotEnd().toEpochMilli(), nextBase,
            0, 0));
      }
      SlotClass slotClass = slotMap == null ? SlotClass.UNKNOWN
          : slotMap.getClasses().get(grid.slotIndex(slot));
      context.forward(new Record<>(service, io.tideline.events.SlotForecast.newBuilder()
          .setServiceId(service)
          .setSlotStart(forecast.slotStart())
          .setSlotEnd(forecast.slotEnd())
          .setHoliday(forecast.dayKind() == DayKind.HOLIDAY)
          .setSlotClass(slotClass)
          .setP50(forecast.p50())
          .setP90(forecast.p90())
          .setP95(forecast.p95())
          .setP99(forecast.p99())
          .setHistoricalPeak(history.peak(today, settings.forecast().windowDays()).gpus())
          .setSampleDays(forecast.daysUsed())
          .setComputedAt(now)
          .build(), now.toEpochMilli()));
    }
    byte[] after = state.toBytes();
    if (before == null || !Arrays.equals(before, after)) {
      positions.put(service, after);
    }
    return drawn;
  }

  private CapacityReservation toEvent(ReservationEvent e) {
    return CapacityReservation.newBuilder()
        .setReservationId(e.serviceId() + "@" + e.from() + "/" + e.type())
        .setServiceId(e.serviceId())
        .setAction(ReservationAction.valueOf(e.type().name()))
        .setGpus(e.gpus())
        .setValidFrom(e.from())
        .setValidUntil(e.until())
        .setQuantile(e.quantile().name().toLowerCase(Locale.ROOT))
        .setReason(e.reason())
        .setIssuedAt(e.issuedAt())
        .build();
  }

  private SlotHistory loadHistory(String service) {
    byte[] bytes = histories.get(service);
    return bytes == null
        ? SlotHistory.empty(service, settings.zone(), settings.forecast())
        : SlotHistory.fromBytes(bytes);
  }

  private SlotHistory loadClassHistory(String workloadClass) {
    byte[] bytes = classHistories.get(workloadClass);
    return bytes == null
        ? SlotHistory.empty(workloadClass, settings.zone(), settings.forecast())
        : SlotHistory.fromBytes(bytes);
  }

  private ServiceState loadState(String service) {
    return ServiceState.fromBytes(positions.get(service));
  }

  private HolidayCalendar calendar() {
    List<LocalDate> declared = new ArrayList<>();
    try (KeyValueIterator<String, String> it = holidays.all()) {
      it.forEachRemaining(kv -> declared.add(LocalDate.parse(kv.key)));
    }
    return settings.calendar(declared);
  }

  private SlotClassMap currentSlotMap() {
    byte[] bytes = slotMaps.get(settings.cluster());
    return bytes == null ? null : StoredSlotMaps.decode(bytes);
  }

  private static MinuteCount decodeMinute(String key, long minute, byte[] bytes) {
    if (bytes == null) {
      return MinuteCount.fromKey(key, minute, 0, 0, 0);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    return MinuteCount.fromKey(key, minute, b.getInt(), b.getInt(), b.getInt());
  }

  private static byte[] encodeMinute(MinuteCount m) {
    return ByteBuffer.allocate(12).putInt(m.counted()).putInt(m.carried()).putInt(m.unknown())
        .array();
  }
}
