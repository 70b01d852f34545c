package io.tideline.core.forecast.kernel;

import io.tideline.core.forecast.ForecastBasis;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What the kernel knows of one service's position between ticks (F2/F3), and what its fallbacks
 * did.
 *
 * <p>Holding model (the forecaster sees telemetry, not the allocation ledger): a slot's
 * <em>plan</em> is made at its reserve instant and says how many GPUs the service holds on its own
 * account in the slot ({@code held} = its base plus any reservation). During the slot, usage above
 * held (minus released) is an under-forecast (F3 over-issue); a slot without a plan (no history)
 * takes current usage as held.
 *
 * @param inUse GPUs in use in the last recorded minute (counted + carried)
 * @param inUseMinute epoch minute of {@code inUse}, or {@code null} before any
 * @param overIssued over-issued GPUs in force
 * @param overIssuedUntil until when they are in force, or {@code null} when none
 * @param plans plans of the current and the next slot, by start
 * @param fallback what the F3 fallbacks did for this service so far
 */
public record ServiceHolding(int inUse, Long inUseMinute, int overIssued,
    Instant overIssuedUntil, List<Plan> plans, Fallback fallback) {

  /** A service not planned yet. */
  public static final ServiceHolding NEW = new ServiceHolding(0, null, 0, null, List.of(),
      Fallback.NONE);

  public ServiceHolding {
    plans = List.copyOf(plans);
    Objects.requireNonNull(fallback, "fallback");
  }

  /**
   * One slot's holding.
   *
   * @param start slot start
   * @param end slot end (exclusive)
   * @param held GPUs held on the service's own account in the slot (base + reserved)
   * @param reserved GPUs reserved for the slot by a RESERVE (0 when none)
   * @param released of {@code reserved}, GPUs given back early
   * @param basis the basis of the forecast the plan was made from
   */
  public record Plan(Instant start, Instant end, int held, int reserved, int released,
      ForecastBasis basis) {
    public Plan {
      Objects.requireNonNull(start, "start");
      Objects.requireNonNull(end, "end");
      Objects.requireNonNull(basis, "basis");
    }

    Plan release(int gpus) {
      return new Plan(start, end, held, reserved, released + gpus, basis);
    }
  }

  /**
   * The F3 fallbacks' measure (issue #21): how often over-issue fired and what it took, how
   * often demand outran even it, and what early release gave back. Cumulative since the service
   * was first seen.
   *
   * @param overIssues OVER_ISSUE decisions
   * @param overIssuedGpus GPUs they lent, summed
   * @param uncovered ticks on which demand stayed above held + over-issued after the decision
   *     (capped, or the pool was empty)
   * @param uncoveredGpus those shortfalls, summed (GPU-ticks)
   * @param releases RELEASE decisions (over-forecast)
   * @param releasedGpus GPUs they gave back, summed
   */
  public record Fallback(long overIssues, long overIssuedGpus, long uncovered,
      long uncoveredGpus, long releases, long releasedGpus) {

    /** Nothing yet. */
    public static final Fallback NONE = new Fallback(0, 0, 0, 0, 0, 0);

    /** The sum of two measures (over services). */
    public Fallback plus(Fallback o) {
      return new Fallback(overIssues + o.overIssues, overIssuedGpus + o.overIssuedGpus,
          uncovered + o.uncovered, uncoveredGpus + o.uncoveredGpus, releases + o.releases,
          releasedGpus + o.releasedGpus);
    }
  }

  /** The plan of the slot holding {@code now}, or null. */
  Plan planAt(Instant now) {
    for (Plan p : plans) {
      if (!p.start().isAfter(now) && now.isBefore(p.end())) {
        return p;
      }
    }
    return null;
  }

  /** This holding without what ended at or before {@code now}. */
  ServiceHolding expire(Instant now) {
    List<Plan> live = new ArrayList<>(plans);
    live.removeIf(p -> !p.end().isAfter(now));
    boolean overEnded = overIssuedUntil != null && !overIssuedUntil.isAfter(now);
    return new ServiceHolding(inUse, inUseMinute, overEnded ? 0 : overIssued,
        overEnded ? null : overIssuedUntil, live, fallback);
  }

  ServiceHolding withInUse(int gpus, long minute) {
    return new ServiceHolding(gpus, minute, overIssued, overIssuedUntil, plans, fallback);
  }

  /** This holding with {@code plan} for its slot (replacing an earlier plan of the slot). */
  ServiceHolding withPlan(Plan plan) {
    List<Plan> next = new ArrayList<>(plans);
    next.removeIf(p -> p.start().equals(plan.start()));
    next.add(plan);
    next.sort(java.util.Comparator.comparing(Plan::start));
    return new ServiceHolding(inUse, inUseMinute, overIssued, overIssuedUntil, next, fallback);
  }

  ServiceHolding withOverIssue(int gpus, Instant until) {
    return new ServiceHolding(inUse, inUseMinute, overIssued + gpus, until, plans, fallback);
  }

  ServiceHolding withFallback(Fallback measure) {
    return new ServiceHolding(inUse, inUseMinute, overIssued, overIssuedUntil, plans, measure);
  }
}
