package io.tideline.core.forecast.kernel;

import io.tideline.core.forecast.ActiveReservation;
import io.tideline.core.forecast.Calibration;
import io.tideline.core.forecast.DayKind;
import io.tideline.core.forecast.DemandForecaster;
import io.tideline.core.forecast.ForecastBasis;
import io.tideline.core.forecast.HolidayCalendar;
import io.tideline.core.forecast.ReservationDecision;
import io.tideline.core.forecast.ReservationEvent;
import io.tideline.core.forecast.ReservationPlanner;
import io.tideline.core.forecast.ServicePosition;
import io.tideline.core.forecast.SlotForecast;
import io.tideline.core.forecast.SlotHistory;
import io.tideline.core.forecast.kernel.ForecastEffect.Count;
import io.tideline.core.forecast.kernel.ForecastInput.GpuObserved;
import io.tideline.core.forecast.kernel.ForecastInput.HolidayChanged;
import io.tideline.core.forecast.kernel.ForecastInput.JobDeclared;
import io.tideline.core.forecast.kernel.ForecastInput.JobRan;
import io.tideline.core.forecast.kernel.ForecastInput.NodeChanged;
import io.tideline.core.forecast.kernel.ForecastInput.Ticked;
import io.tideline.core.kernel.Inbox;
import io.tideline.core.kernel.Journal;
import io.tideline.core.kernel.Step;
import io.tideline.core.kernel.Table;
import io.tideline.core.kernel.Tick;
import io.tideline.core.slots.SlotClass;
import io.tideline.core.slots.SlotClassifier;
import io.tideline.core.slots.SlotGrid;
import io.tideline.core.slots.SlotMap;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The forecaster's policy as a pure kernel (issue #14, ADR 0008; F1–F4, issue #21): from GPU
 * observations, jobs, the inventory, holidays and the clock to "GPUs in use per service per
 * minute", slot histories, forecasts, reservations (RESERVE / RELEASE / OVER_ISSUE) and the daily
 * F4 slot map. The forecaster service and the simulator's twin run it through the platform's
 * {@code ForecastHost}; nothing here reads a clock, a store or a topic.
 *
 * <h2>Inputs wait; ticks decide</h2>
 * A non-tick input is only added to the inbox — unless its event time is more than
 * {@link ForecastKernelConfig#maxInputLead()} after the last tick: then it is refused
 * ({@link ForecastEffect.Refused}) and the host dead-letters it. A tick of another cluster, or
 * one not after the last, is ignored (counted). On a tick at {@code t}, in this order:
 *
 * <ol>
 *   <li><b>Apply the inputs timed before {@code t}</b>, in the inbox's canonical order. A GPU
 *       observation is merged into its GPU-minute ({@link GpuObserved#first}: an OK sample beats
 *       a STALE one, the earliest wins) — or counted late if its minute is recorded already. A
 *       submission sets a job's class and service, a lifecycle fact its end (or clears it on a
 *       restart). A node sets the GPUs it lends; a node that left forgets its GPUs. A holiday is
 *       declared or withdrawn.
 *   <li><b>Record the minutes</b> that ended {@link ForecastKernelConfig#minuteGrace()} before
 *       {@code t} and have at least one observation (a minute nobody reported is missing for
 *       everyone, never zero), oldest first. For each minute, every GPU is attributed once:
 *       <ul>
 *         <li>OK: to its service, else to its job ({@code jobs.submitted} gives the job's class),
 *             else idle;
 *         <li>STALE, or silent (no observation while others report): to the owner of its last
 *             OK sample (the STALE sample's own attribution first) — <em>carried</em> while that
 *             sample is at most {@link ForecastKernelConfig#staleCarry()} old, unless the job it
 *             ran has ended by the minute; past the carry <em>unknown</em>. A GPU silent longer
 *             than {@link ForecastKernelConfig#silentForget()} is forgotten.
 *       </ul>
 *       A service with an unknown GPU in the minute is not recorded (missing, not low); a
 *       service with counted or carried GPUs is recorded with their number; a service already
 *       known with no GPU in a reported minute is recorded at 0. Workload classes are recorded
 *       the same way (services count as ONLINE_INFERENCE). The minute's idle and in-use GPUs are
 *       the fleet figures the over-issue pool is bounded by. Then every service's remembered
 *       forecasts whose slot is now complete are settled ({@link DemandForecaster#settle}).
 *   <li><b>On the first tick of a local day</b>: histories are pruned to what the windows still
 *       use (a service left with no history is forgotten), the F4 slot map is computed from the
 *       sum of the services' mean profiles and published ({@link ForecastEffect.SlotMapComputed}),
 *       class histories are pruned and jobs ended more than
 *       {@link ForecastKernelConfig#jobMemory()} ago are forgotten.
 *   <li><b>Plan every service</b>, in id order, against one shared pool: the GPUs the inventory
 *       lends less those in use in the latest recorded minute (without an inventory: the idle
 *       GPUs telemetry saw), less every over-issue still in force. At a reserve instant
 *       ({@code t + leadTime} is a slot start) the slot is forecast by the {@link
 *       DemandForecaster} and the forecast published ({@link ForecastEffect.Forecast}) and
 *       remembered for calibration. The core {@link ReservationPlanner} then decides RELEASE
 *       (exactly {@code releaseEarly} before a reservation ends), RESERVE (at the reserve instant,
 *       sized by the calibrated quantile) and OVER_ISSUE (demand above what is held, capped,
 *       drawn from the pool until it expires); each is an effect stamped {@code t} with the basis
 *       of its forecast, and each fallback is measured in the service's {@link
 *       ServiceHolding.Fallback}.
 *   <li>A {@link ForecastEffect.Tally} of what was counted, for meters.
 * </ol>
 *
 * <p>Every fact of a tick commutes with the others of that tick (observations merge by a total
 * order, jobs and nodes are keyed facts whose only order is their event time), so the same inputs
 * in any arrival order give the same state and effects.
 */
public final class ForecastKernel {

  /** Workload class the GPUs of online services count under (W1). */
  public static final String ONLINE = "ONLINE_INFERENCE";
  private static final long MINUTE_MS = 60_000L;

  private final ForecastKernelConfig config;
  private final SlotGrid grid;
  private final DemandForecaster forecaster;
  private final ReservationPlanner planner;
  private final SlotClassifier classifier;

  public ForecastKernel(ForecastKernelConfig config) {
    this.config = config;
    this.grid = config.grid();
    this.forecaster = new DemandForecaster(config.forecast());
    this.planner = new ReservationPlanner(config.reservation(), grid);
    this.classifier = new SlotClassifier(config.slotClassifier());
  }

  public ForecastKernelConfig config() {
    return config;
  }

  /**
   * One step: an input waits (or is refused), a tick decides (see the class comment).
   *
   * @param now the adapter's notion of the time (ignored: a tick carries its own, and a waiting
   *     input is judged against the last tick), kept for the kernels' common signature
   */
  public Step<ForecastState, ForecastEffect> step(Instant now, ForecastState state,
      ForecastInput input) {
    Journal journal = new Journal();
    List<ForecastEffect> effects = new ArrayList<>();
    ForecastState next;
    if (input instanceof Ticked t) {
      next = new Cycle(state, journal, effects).tick(t.tick());
    } else {
      ForecastClock clock = state.clockOf(config.cluster());
      if (clock.lastTick() != null
          && input.at().isAfter(clock.lastTick().plus(config.maxInputLead()))) {
        effects.add(new ForecastEffect.Refused(clock.lastTick(), input, String.format(Locale.ROOT,
            "event time %s is more than %s after the forecaster's clock (%s)", input.at(),
            config.maxInputLead(), clock.lastTick())));
        next = state;
      } else {
        journal.touch(ForecastState.INBOX, Long.toString(state.inbox().nextSeq()));
        next = withInbox(state, state.inbox().add(input));
      }
    }
    return new Step<>(next, effects, journal.changes());
  }

  private static ForecastState withInbox(ForecastState s, Inbox<ForecastInput> inbox) {
    return new ForecastState(s.histories(), s.classHistories(), s.holdings(), s.calibrations(),
        s.gpus(), s.jobs(), s.nodes(), s.holidays(), s.clock(), s.slotMaps(), inbox);
  }

  /** A bucket GPUs are counted in: a service, a job without a service, or idle. */
  private record Bucket(Kind kind, String id) implements Comparable<Bucket> {
    enum Kind { SERVICE, JOB, IDLE }

    static final Bucket IDLE = new Bucket(Kind.IDLE, "");

    static Bucket of(String serviceId, String jobId) {
      return !serviceId.isEmpty() ? new Bucket(Kind.SERVICE, serviceId)
          : !jobId.isEmpty() ? new Bucket(Kind.JOB, jobId) : IDLE;
    }

    @Override
    public int compareTo(Bucket o) {
      int k = kind.compareTo(o.kind);
      return k != 0 ? k : id.compareTo(o.id);
    }
  }

  /** Counted, carried and unknown GPUs of one bucket in one minute. */
  private static final class Gpus {
    int counted;
    int carried;
    int unknown;

    int inUse() {
      return counted + carried;
    }
  }

  /** One tick's work on a working copy of the state. */
  private final class Cycle {
    private final Journal journal;
    private final List<ForecastEffect> effects;
    private final EnumMap<Count, Integer> counts = new EnumMap<>(Count.class);
    private Table<SlotHistory> histories;
    private Table<SlotHistory> classHistories;
    private Table<ServiceHolding> holdings;
    private Table<Calibration> calibrations;
    private Table<GpuTrack> gpus;
    private Table<JobInfo> jobs;
    private Table<NodeGpus> nodes;
    private Table<String> holidays;
    private Table<ForecastClock> clockTable;
    private Table<SlotMapRecord> slotMaps;
    private Inbox<ForecastInput> inbox;
    private ForecastClock clock;

    Cycle(ForecastState s, Journal journal, List<ForecastEffect> effects) {
      this.journal = journal;
      this.effects = effects;
      histories = s.histories();
      classHistories = s.classHistories();
      holdings = s.holdings();
      calibrations = s.calibrations();
      gpus = s.gpus();
      jobs = s.jobs();
      nodes = s.nodes();
      holidays = s.holidays();
      clockTable = s.clock();
      slotMaps = s.slotMaps();
      inbox = s.inbox();
      clock = s.clockOf(config.cluster());
    }

    private ForecastState state() {
      return new ForecastState(histories, classHistories, holdings, calibrations, gpus, jobs,
          nodes, holidays, clockTable, slotMaps, inbox);
    }

    private void count(Count c) {
      counts.merge(c, 1, Integer::sum);
    }

    ForecastState tick(Tick tick) {
      if (!config.cluster().equals(tick.cluster())) {
        count(Count.TICK_OTHER_CLUSTER);
        effects.add(new ForecastEffect.Tally(tick.at(), counts));
        return state();
      }
      if (clock.lastTick() != null && !tick.at().isAfter(clock.lastTick())) {
        count(Count.TICK_STALE);
        effects.add(new ForecastEffect.Tally(tick.at(), counts));
        return state();
      }
      Instant now = tick.at();
      // 1. The inputs timed before the tick, in canonical order.
      Inbox.Drained<ForecastInput> drained = inbox.drainBefore(now);
      inbox = drained.rest();
      for (Inbox.Entry<ForecastInput> e : drained.due()) {
        journal.touch(ForecastState.INBOX, Long.toString(e.position().seq()));
        apply(e.input());
      }
      clock = new ForecastClock(now, clock.recordedBelow(), clock.slotMapDay(), clock.fleetIdle(),
          clock.fleetInUse(), inbox.nextSeq());
      HolidayCalendar calendar = calendar();
      // 2. The minutes whose grace has passed.
      recordMinutes(now, calendar);
      // 3. The first tick of a local day.
      LocalDate today = grid.date(now);
      if (clock.slotMapDay() == null || clock.slotMapDay().isBefore(today)) {
        newDay(now, today, calendar);
      }
      // 4. Every service.
      plan(now, today, calendar);
      clockTable = clockTable.put(journal, config.cluster(), clock);
      count(Count.TICK_PROCESSED);
      effects.add(new ForecastEffect.Tally(now, counts));
      return state();
    }

    private HolidayCalendar calendar() {
      List<LocalDate> declared = new ArrayList<>();
      for (String date : holidays.ids()) {
        declared.add(LocalDate.parse(date));
      }
      return config.calendar(declared);
    }

    // ---- 1. inputs ----

    private void apply(ForecastInput input) {
      if (input instanceof GpuObserved o) {
        if (clock.recordedBelow() != null && o.minute() < clock.recordedBelow()) {
          count(Count.OBSERVATION_LATE);
          return;
        }
        GpuTrack track = gpus.get(o.gpuId());
        gpus = gpus.put(journal, o.gpuId(),
            (track == null ? GpuTrack.first(o.nodeId()) : track).observe(o));
      } else if (input instanceof JobDeclared j) {
        JobInfo known = jobOf(j.jobId());
        jobs = jobs.put(journal, j.jobId(),
            new JobInfo(j.workloadClass(), j.serviceId(), known.endedAt()));
      } else if (input instanceof JobRan r) {
        JobInfo known = jobOf(r.jobId());
        jobs = jobs.put(journal, r.jobId(), new JobInfo(known.workloadClass(),
            known.serviceId(), r.ended() ? r.occurredAt() : null));
      } else if (input instanceof NodeChanged n) {
        nodes = n.lendableGpus() > 0 && !n.left()
            ? nodes.put(journal, n.nodeId(), new NodeGpus(n.lendableGpus()))
            : nodes.remove(journal, n.nodeId());
        if (n.left()) {
          for (String gpu : List.copyOf(gpus.ids())) {
            if (gpus.get(gpu).nodeId().equals(n.nodeId())) {
              gpus = gpus.remove(journal, gpu);
            }
          }
        }
      } else if (input instanceof HolidayChanged h) {
        holidays = h.declared()
            ? holidays.put(journal, h.date().toString(), h.name())
            : holidays.remove(journal, h.date().toString());
      } else {
        throw new IllegalStateException("a tick never waits in the inbox: " + input);
      }
    }

    private JobInfo jobOf(String jobId) {
      JobInfo j = jobs.get(jobId);
      return j == null ? JobInfo.UNKNOWN : j;
    }

    // ---- 2. minutes ----

    private void recordMinutes(Instant now, HolidayCalendar calendar) {
      long below = Math.floorDiv(now.minus(config.minuteGrace()).toEpochMilli(), MINUTE_MS);
      if (clock.recordedBelow() != null && below <= clock.recordedBelow()) {
        return;
      }
      // the distinct open minutes below `below`, ascending (unboxed: this runs every minute over
      // every GPU's open samples)
      long[] minutes = new long[16];
      int n = 0;
      for (GpuTrack t : gpus.values()) {
        for (GpuObserved o : t.open()) {
          long minute = o.minute();
          if (minute < below) {
            if (n == minutes.length) {
              minutes = Arrays.copyOf(minutes, 2 * n);
            }
            minutes[n++] = minute;
          }
        }
      }
      Arrays.sort(minutes, 0, n);
      for (int i = 0; i < n; i++) {
        if (i == 0 || minutes[i] != minutes[i - 1]) {
          recordMinute(minutes[i]);
        }
      }
      clock = new ForecastClock(clock.lastTick(), below, clock.slotMapDay(), clock.fleetIdle(),
          clock.fleetInUse(), clock.inboxSeq());
      // settle the forecasts whose slot is complete
      Instant complete = Instant.ofEpochMilli(below * MINUTE_MS);
      for (String service : List.copyOf(calibrations.ids())) {
        SlotHistory history = histories.get(service);
        if (history != null) {
          calibrations = calibrations.put(journal, service,
              forecaster.settle(calibrations.get(service), history, calendar, complete));
        }
      }
    }

    private void recordMinute(long m) {
      TreeMap<Bucket, Gpus> buckets = new TreeMap<>();
      long carryMinutes = config.staleCarry().toMillis() / MINUTE_MS;
      long forgetMinutes = config.silentForget().toMillis() / MINUTE_MS;
      Instant minuteStart = Instant.ofEpochMilli(m * MINUTE_MS);
      // the GPUs as they stand before this minute: the loop writes (puts or removes) only the
      // GPU it visits, so each entry is the GPU's current track when it is visited
      for (Map.Entry<String, GpuTrack> e : gpus.asMap().entrySet()) {
        String gpu = e.getKey();
        GpuTrack track = e.getValue();
        GpuObserved o = track.at(m);
        if (o != null && !o.stale()) {
          Bucket b = Bucket.of(o.serviceId(), o.jobId());
          buckets.computeIfAbsent(b, x -> new Gpus()).counted++;
          count(b.kind() == Bucket.Kind.SERVICE ? Count.GPU_SERVICE
              : b.kind() == Bucket.Kind.JOB ? Count.GPU_JOB : Count.GPU_IDLE);
          gpus = gpus.put(journal, gpu, track.recorded(m, o));
          continue;
        }
        if (o == null) {
          if (track.lastSeenMinute() == null) {
            continue; // first seen later: not a GPU of this minute yet
          }
          if (m - track.lastSeenMinute() > forgetMinutes) {
            if (track.open().isEmpty()) {
              gpus = gpus.remove(journal, gpu);
            }
            count(Count.GPU_FORGOTTEN);
            continue;
          }
        }
        // STALE or silent: the figures are absent, never 0. The owner is the STALE sample's
        // own attribution, else that of the last OK sample; the job whose end ends the carry is
        // the sample's, else the last OK one's.
        boolean ownAttribution = o != null && !(o.serviceId().isEmpty() && o.jobId().isEmpty());
        String service = ownAttribution ? o.serviceId() : track.lastServiceId();
        String job = o != null && !o.jobId().isEmpty() ? o.jobId() : track.lastJobId();
        Bucket b = ownAttribution && o.serviceId().isEmpty() ? Bucket.of("", o.jobId())
            : Bucket.of(service, job);
        if (o != null) {
          gpus = gpus.put(journal, gpu, track.recorded(m, o));
        }
        if (b == Bucket.IDLE) {
          if (o != null) {
            count(Count.GPU_UNATTRIBUTED); // a silent idle GPU is simply idle no longer
          }
        } else if (track.lastOkMinute() != null && m - track.lastOkMinute() <= carryMinutes) {
          if (!job.isEmpty() && jobOf(job).endedBy(minuteStart)) {
            count(Count.GPU_CARRY_ENDED);
          } else {
            buckets.computeIfAbsent(b, x -> new Gpus()).carried++;
            count(Count.GPU_CARRIED);
          }
        } else {
          buckets.computeIfAbsent(b, x -> new Gpus()).unknown++;
          count(Count.GPU_UNKNOWN);
        }
      }
      record(m, minuteStart, buckets);
    }

    private void record(long m, Instant at, TreeMap<Bucket, Gpus> buckets) {
      int idle = 0;
      int inUse = 0;
      TreeMap<String, Gpus> classes = new TreeMap<>();
      TreeSet<String> seen = new TreeSet<>();
      for (Map.Entry<Bucket, Gpus> e : buckets.entrySet()) {
        Bucket b = e.getKey();
        Gpus g = e.getValue();
        if (b.kind() == Bucket.Kind.IDLE) {
          idle += g.counted;
          continue;
        }
        inUse += g.inUse() + g.unknown;
        String workloadClass = b.kind() == Bucket.Kind.SERVICE ? ONLINE
            : jobOf(b.id()).workloadClass();
        Gpus c = classes.computeIfAbsent(workloadClass, x -> new Gpus());
        c.counted += g.inUse();
        c.unknown += g.unknown;
        if (b.kind() == Bucket.Kind.SERVICE) {
          seen.add(b.id());
          if (g.unknown > 0) {
            count(Count.MINUTE_SKIPPED_UNKNOWN);
          } else {
            recordService(b.id(), m, at, g.inUse());
            count(Count.MINUTE_RECORDED);
          }
        }
      }
      for (String service : List.copyOf(histories.ids())) {
        if (!seen.contains(service)) {
          recordService(service, m, at, 0);
          count(Count.MINUTE_ZERO);
        }
      }
      classes.forEach((workloadClass, g) -> {
        if (g.unknown == 0) {
          SlotHistory h = classHistories.get(workloadClass);
          classHistories = classHistories.put(journal, workloadClass, (h == null
              ? SlotHistory.empty(workloadClass, config.zone(), config.forecast()) : h)
              .plus(at, g.counted));
        }
      });
      clock = new ForecastClock(clock.lastTick(), clock.recordedBelow(), clock.slotMapDay(), idle,
          inUse, clock.inboxSeq());
    }

    private void recordService(String service, long m, Instant at, int gpusInUse) {
      SlotHistory h = histories.get(service);
      histories = histories.put(journal, service, (h == null
          ? SlotHistory.empty(service, config.zone(), config.forecast()) : h).plus(at, gpusInUse));
      ServiceHolding holding = holdings.get(service);
      holdings = holdings.put(journal, service,
          (holding == null ? ServiceHolding.NEW : holding).withInUse(gpusInUse, m));
      if (!calibrations.has(service)) {
        calibrations = calibrations.put(journal, service, Calibration.EMPTY);
      }
    }

    // ---- 3. a new day ----

    private void newDay(Instant now, LocalDate today, HolidayCalendar calendar) {
      double[] profile = new double[grid.slotsPerDay()];
      for (String service : List.copyOf(histories.ids())) {
        SlotHistory pruned = histories.get(service).pruned(today, calendar, config.forecast());
        if (pruned.days().isEmpty()) {
          histories = histories.remove(journal, service);
          holdings = holdings.remove(journal, service);
          calibrations = calibrations.remove(journal, service);
          continue;
        }
        histories = histories.put(journal, service, pruned);
        double[] mean = pruned.meanProfile(today, config.forecast().windowDays(), calendar);
        for (int i = 0; i < profile.length; i++) {
          profile[i] += mean[i];
        }
      }
      SlotMap map = classifier.classify(grid, profile);
      List<Double> values = new ArrayList<>(profile.length);
      for (double v : profile) {
        values.add(v);
      }
      SlotMapRecord record = new SlotMapRecord(config.cluster(), today, config.zone().getId(),
          (int) grid.slotLength().toMinutes(), map.classes(), values,
          new TreeMap<>(map.centroids()), histories.size(), now, map.trace());
      slotMaps = slotMaps.put(journal, config.cluster(), record);
      effects.add(new ForecastEffect.SlotMapComputed(now, record));
      for (String workloadClass : List.copyOf(classHistories.ids())) {
        SlotHistory pruned = classHistories.get(workloadClass)
            .pruned(today, calendar, config.forecast());
        classHistories = pruned.days().isEmpty()
            ? classHistories.remove(journal, workloadClass)
            : classHistories.put(journal, workloadClass, pruned);
      }
      Instant forgetBefore = now.minus(config.jobMemory());
      for (String job : List.copyOf(jobs.ids())) {
        Instant ended = jobs.get(job).endedAt();
        if (ended != null && ended.isBefore(forgetBefore)) {
          jobs = jobs.remove(journal, job);
        }
      }
      clock = new ForecastClock(clock.lastTick(), clock.recordedBelow(), today,
          clock.fleetIdle(), clock.fleetInUse(), clock.inboxSeq());
    }

    // ---- 4. planning ----

    private void plan(Instant now, LocalDate today, HolidayCalendar calendar) {
      int pool = Math.max(0, poolIdle() - outstandingOverIssue(now));
      Instant leadAt = now.plus(config.reservation().leadTime());
      boolean reserveInstant = grid.isSlotStart(leadAt);
      Instant slot = reserveInstant ? leadAt : grid.slotEndOf(leadAt);
      SlotMapRecord slotMap = slotMaps.get(config.cluster());
      for (String service : List.copyOf(histories.ids())) {
        pool -= planService(now, today, service, calendar, slotMap, slot, reserveInstant,
            Math.max(0, pool));
      }
    }

    /** GPUs the shared pool can lend: the inventory's less those in use, else telemetry's idle. */
    private int poolIdle() {
      long fleet = 0;
      for (NodeGpus n : nodes.values()) {
        fleet += n.gpus();
      }
      long pool = fleet > 0 ? Math.max(0, fleet - clock.fleetInUse()) : clock.fleetIdle();
      return (int) Math.min(Integer.MAX_VALUE, pool);
    }

    /** Over-issued GPUs still in force, over every service: each draws on the pool until then. */
    private int outstandingOverIssue(Instant now) {
      int total = 0;
      for (ServiceHolding h : holdings.values()) {
        total += h.expire(now).overIssued();
      }
      return total;
    }

    /** Plans one service; returns the GPUs it over-issued (drawn from the pool). */
    private int planService(Instant now, LocalDate today, String service,
        HolidayCalendar calendar, SlotMapRecord slotMap, Instant slot, boolean reserveInstant,
        int poolIdle) {
      SlotHistory history = histories.get(service);
      ServiceHolding stored = holdings.get(service);
      ServiceHolding holding = (stored == null ? ServiceHolding.NEW : stored).expire(now);
      Calibration calibration = calibrations.get(service);
      if (calibration == null) {
        calibration = Calibration.EMPTY;
      }
      // a. The forecast of the slot leadTime ahead (only a reserve instant needs one).
      SlotForecast forecast;
      if (reserveInstant) {
        forecast = forecaster.forecast(history, calibration, slot, calendar, now);
        calibration = forecaster.remember(calibration, forecast);
      } else {
        forecast = new SlotForecast(service, slot, slot.plus(grid.slotLength()),
            DayKind.REGULAR, ForecastBasis.NO_HISTORY, 0, 0, 0, 0, 0, 0,
            history.relativeAccuracy(), List.of());
      }
      // b. The position: what the service holds on its own account now, per the slot's plan.
      ServiceHolding.Plan current = holding.planAt(now);
      int held = current == null ? holding.inUse() : current.held() - current.released();
      ActiveReservation reservation = null;
      if (current != null && current.reserved() - current.released() > 0) {
        int remaining = current.reserved() - current.released();
        int base = current.held() - current.reserved();
        int used = Math.min(remaining, Math.max(0, holding.inUse() - base));
        reservation = new ActiveReservation(remaining, current.start(), current.end(), used);
      }
      ServicePosition position = new ServicePosition(service, Math.max(0, held),
          holding.inUse(), holding.overIssued(), poolIdle, reservation);
      int carried = reservation != null && !reservation.until().isAfter(slot)
          ? reservation.gpus() : 0;
      int nextBase = Math.max(0, held - carried);
      ForecastBasis currentBasis = current == null ? ForecastBasis.NO_HISTORY : current.basis();

      // c. The planner decides; apply its events and measure the fallbacks.
      ReservationDecision decision = planner.plan(now, forecast, position);
      ServiceHolding.Fallback f = holding.fallback();
      boolean reserved = false;
      int drawn = 0;
      for (ReservationEvent event : decision.events()) {
        ForecastBasis basis = currentBasis;
        switch (event.type()) {
          case RESERVE -> {
            holding = holding.withPlan(new ServiceHolding.Plan(event.from(), event.until(),
                nextBase + event.gpus(), event.gpus(), 0, forecast.basis()));
            reserved = true;
            basis = forecast.basis();
          }
          case RELEASE -> {
            holding = holding.withPlan(current.release(event.gpus()));
            f = new ServiceHolding.Fallback(f.overIssues(), f.overIssuedGpus(), f.uncovered(),
                f.uncoveredGpus(), f.releases() + 1, f.releasedGpus() + event.gpus());
          }
          case OVER_ISSUE -> {
            drawn += event.gpus();
            holding = holding.withOverIssue(event.gpus(), event.until());
            f = new ServiceHolding.Fallback(f.overIssues() + 1, f.overIssuedGpus() + event.gpus(),
                f.uncovered(), f.uncoveredGpus(), f.releases(), f.releasedGpus());
          }
        }
        effects.add(new ForecastEffect.Reservation(now, event, basis));
      }
      int shortfall = position.demandGpus() - position.heldGpus() - position.overIssuedGpus()
          - drawn;
      if (shortfall > 0) {
        f = new ServiceHolding.Fallback(f.overIssues(), f.overIssuedGpus(), f.uncovered() + 1,
            f.uncoveredGpus() + shortfall, f.releases(), f.releasedGpus());
      }
      holding = holding.withFallback(f);

      // d. At a reserve instant: plan the slot even without a reservation, publish the forecast.
      if (reserveInstant) {
        if (!reserved && forecast.basis() != ForecastBasis.NO_HISTORY) {
          holding = holding.withPlan(new ServiceHolding.Plan(slot, forecast.slotEnd(), nextBase,
              0, 0, forecast.basis()));
        }
        SlotClass slotClass = slotMap == null ? null
            : slotMap.classes().get(grid.slotIndex(slot));
        effects.add(new ForecastEffect.Forecast(now, forecast, slotClass,
            history.peak(today, config.forecast().windowDays()).gpus()));
      }
      holdings = holdings.put(journal, service, holding);
      calibrations = calibrations.put(journal, service, calibration);
      return drawn;
    }
  }
}
