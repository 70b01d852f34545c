package io.tideline.core.forecast.kernel;

import io.tideline.core.forecast.ForecastBasis;
import io.tideline.core.forecast.ReservationEvent;
import io.tideline.core.forecast.SlotForecast;
import io.tideline.core.slots.SlotClass;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link ForecastKernel} step decided, each stamped with the tick it was decided at
 * ({@link #at()}); the host turns each into a record of its topic.
 */
public sealed interface ForecastEffect {

  /** The tick the effect was decided at. */
  Instant at();

  /**
   * A reservation decision for {@code capacity.reservations} (F2/F3): RESERVE ahead of a rise,
   * RELEASE early on over-forecast, OVER_ISSUE on under-forecast.
   *
   * @param basis the basis of the forecast behind it (a cold-start reservation says so)
   */
  record Reservation(Instant at, ReservationEvent event, ForecastBasis basis)
      implements ForecastEffect {
    public Reservation {
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(event, "event");
      Objects.requireNonNull(basis, "basis");
    }
  }

  /**
   * The forecast of the slot starting {@code leadTime} ahead, for {@code forecast.slots}, made at
   * its reserve instant.
   *
   * @param slotClass the F4 class of the slot (null before the first slot map)
   * @param historicalPeak largest usage over the window (input of quota's 70% online guarantee)
   */
  record Forecast(Instant at, SlotForecast forecast, SlotClass slotClass, double historicalPeak)
      implements ForecastEffect {
    public Forecast {
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(forecast, "forecast");
    }
  }

  /** The day's F4 slot map, for {@code forecast.slotmap}, on the first tick of a local day. */
  record SlotMapComputed(Instant at, SlotMapRecord map) implements ForecastEffect {
    public SlotMapComputed {
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(map, "map");
    }
  }

  /**
   * An input refused: its event time lies more than the configured lead ahead of the last tick.
   * The host dead-letters the record it came from with {@code reason}.
   *
   * @param at the last tick (the kernel's clock when it refused)
   */
  record Refused(Instant at, ForecastInput input, String reason) implements ForecastEffect {
    public Refused {
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(input, "input");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** What one tick counted, for meters (never a decision). */
  record Tally(Instant at, Map<Count, Integer> counts) implements ForecastEffect {
    public Tally {
      Objects.requireNonNull(at, "at");
      EnumMap<Count, Integer> copy = new EnumMap<>(Count.class);
      copy.putAll(counts);
      counts = Collections.unmodifiableMap(copy);
    }

    /** The count of {@code c} (0 when none). */
    public int of(Count c) {
      return counts.getOrDefault(c, 0);
    }
  }

  /** What a {@link Tally} counts. */
  enum Count {
    /** A GPU-minute counted for a service from an OK sample. */
    GPU_SERVICE,
    /** A GPU-minute counted for a job without a service (training, batch). */
    GPU_JOB,
    /** A GPU-minute counted idle. */
    GPU_IDLE,
    /** A GPU-minute of a STALE or silent GPU carried for its last owner. */
    GPU_CARRIED,
    /** A GPU-minute of a STALE or silent GPU past the carry: its owner's minute is unknown. */
    GPU_UNKNOWN,
    /** A carried GPU-minute dropped because the job it ran had ended. */
    GPU_CARRY_ENDED,
    /** A STALE GPU-minute of a GPU with no known owner. */
    GPU_UNATTRIBUTED,
    /** A GPU that stopped reporting, forgotten. */
    GPU_FORGOTTEN,
    /** An observation of a minute already recorded. */
    OBSERVATION_LATE,
    /** A service-minute recorded into its history. */
    MINUTE_RECORDED,
    /** A service-minute recorded as 0: telemetry was there and no GPU was the service's. */
    MINUTE_ZERO,
    /** A service-minute not recorded: a GPU of unknown use (missing data, not low). */
    MINUTE_SKIPPED_UNKNOWN,
    /** A tick decided on. */
    TICK_PROCESSED,
    /** A tick not after the last one, ignored. */
    TICK_STALE,
    /** A tick of another cluster, ignored. */
    TICK_OTHER_CLUSTER
  }
}
