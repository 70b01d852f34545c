package io.tideline.core.pricing;

import io.tideline.core.trace.TraceEntry;
import io.tideline.core.slots.SlotClass;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Finds the start time that minimises a job's cost before its deadline (requirement B2). The cost
 * of a run as a function of its start is piecewise linear, changing slope only when the start or the
 * end crosses a slot boundary, so the minimum lies at one of: the earliest start, the latest start
 * (deadline − duration), a boundary, or a boundary minus the duration. Exactly those candidates are
 * priced; ties go to the earliest start.
 */
public final class CheapestStart {

  private final UsageMeter meter;

  public CheapestStart(PricingConfig config) {
    this.meter = new UsageMeter(config);
  }

  /**
   * The cheapest start in [earliest, deadline − duration].
   *
   * @param jobId the job (for the trace)
   * @param duration expected run time
   * @param earliest earliest possible start (usually {@code now})
   * @param deadline latest useful completion
   */
  public StartChoice find(String jobId, Duration duration, Instant earliest, Instant deadline,
      double gpus, String gpuModel, ChargeBasis basis, SlotTimeline slots) {
    List<TraceEntry> trace = new ArrayList<>();
    Instant first = earliest.truncatedTo(ChronoUnit.SECONDS);
    if (earliest.isAfter(first)) {
      first = first.plusSeconds(1); // per-second metering: start on a whole second
    }
    Duration len = Duration.ofSeconds(duration.toSeconds());
    Instant latest = deadline.minus(len).truncatedTo(ChronoUnit.SECONDS);
    if (latest.isBefore(first)) {
      trace.add(new TraceEntry(jobId, "B2 deadline", "infeasible", "earliest " + first + " + "
          + len + " ends after deadline " + deadline));
      return new StartChoice(false, null, null, null, null, 0, trace);
    }
    // 1. Candidates: both ends of the window, every class change, every change minus the duration.
    TreeSet<Instant> candidates = new TreeSet<>(List.of(first, latest));
    Instant cursor = first;
    Instant horizon = latest.plus(len);
    SlotClass current = slots.slotAt(cursor);
    while (true) {
      Instant b = slots.nextBoundaryAfter(cursor).truncatedTo(ChronoUnit.SECONDS);
      if (!b.isAfter(cursor)) {
        b = cursor.plusSeconds(1);
      }
      if (b.isAfter(horizon)) {
        break;
      }
      SlotClass c = slots.slotAt(b);
      if (c != current) {
        addIfIn(candidates, b, first, latest);
        addIfIn(candidates, b.minus(len), first, latest);
        current = c;
      }
      cursor = b;
    }
    // 2. Price each exactly (no per-record rounding); keep the cheapest, the earliest on a tie.
    Instant best = null;
    BigDecimal bestExact = null;
    for (Instant s : candidates) {
      BigDecimal cost = meter.exactCost(gpuModel, gpus, basis, s, s.plus(len), slots);
      if (bestExact == null || cost.compareTo(bestExact) < 0) {
        best = s;
        bestExact = cost;
      }
    }
    // 3. Report what the bill will say (rounded per usage record) for the choice and for now.
    BigDecimal bestCost = billed(jobId, gpuModel, gpus, basis, best, len, slots);
    BigDecimal atEarliest = billed(jobId, gpuModel, gpus, basis, first, len, slots);
    trace.add(new TraceEntry(jobId, "B2 cheapest start", "start " + best,
        candidates.size() + " candidate starts in [" + first + ", " + latest + "]; cost "
            + bestCost.toPlainString() + " vs " + atEarliest.toPlainString() + " at " + first));
    return new StartChoice(true, best, best.plus(len), bestCost, atEarliest, candidates.size(),
        trace);
  }

  private BigDecimal billed(String jobId, String gpuModel, double gpus, ChargeBasis basis,
      Instant start, Duration len, SlotTimeline slots) {
    return UsageMeter.total(meter.meter("", jobId, gpuModel, gpus, basis, start, start.plus(len),
        slots));
  }

  private static void addIfIn(TreeSet<Instant> set, Instant t, Instant first, Instant latest) {
    if (!t.isBefore(first) && !t.isAfter(latest)) {
      set.add(t);
    }
  }
}
