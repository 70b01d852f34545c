package io.tideline.core.pricing;

import io.tideline.core.slots.SlotClass;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;

/**
 * Which slot class holds at an instant, and where the next change may happen: metering splits a run
 * at those boundaries (B1). Implementations: {@link DailySlotSchedule}, or
 * {@link #sampled(Function, Duration)} around any function of time.
 */
public interface SlotTimeline {

  /** The slot class in force at {@code t}. */
  SlotClass slotAt(Instant t);

  /** The first instant strictly after {@code t} at which the class may change. */
  Instant nextBoundaryAfter(Instant t);

  /**
   * A slot map from a plain function, assuming the class only changes at multiples of {@code step}
   * since the epoch (e.g. the forecaster's 10- or 15-minute slots).
   */
  static SlotTimeline sampled(Function<Instant, SlotClass> slotOf, Duration step) {
    long stepSeconds = step.toSeconds();
    if (stepSeconds <= 0) {
      throw new IllegalArgumentException("step must be at least one second");
    }
    return new SlotTimeline() {
      @Override
      public SlotClass slotAt(Instant t) {
        return slotOf.apply(t);
      }

      @Override
      public Instant nextBoundaryAfter(Instant t) {
        long s = Math.floorDiv(t.getEpochSecond(), stepSeconds) * stepSeconds;
        return Instant.ofEpochSecond(s + stepSeconds);
      }
    };
  }

  /** The forecaster's clustered slot map (F4) as a timeline: boundaries are its slot edges. */
  static SlotTimeline of(io.tideline.core.slots.SlotMap map) {
    return new SlotTimeline() {
      @Override
      public SlotClass slotAt(Instant t) {
        return map.classAt(t);
      }

      @Override
      public Instant nextBoundaryAfter(Instant t) {
        return map.grid().slotEndOf(t);
      }
    };
  }
}
