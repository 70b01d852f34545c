package io.tideline.core.forecast.kernel;

import java.time.Instant;
import java.time.LocalDate;

/**
 * The kernel's clock and fleet figures, one row per cluster.
 *
 * @param lastTick time of the last tick decided on, or {@code null} before the first
 * @param recordedBelow epoch minute below which every minute is attributed and recorded (later
 *     observations of those minutes are late), or {@code null} before the first
 * @param slotMapDay local day of the last F4 slot map, or {@code null}
 * @param fleetIdle idle GPUs telemetry saw in the latest recorded minute
 * @param fleetInUse GPUs in use (or of unknown use) in that minute: the over-issue pool is the
 *     inventory's GPUs less these
 * @param inboxSeq the inbox's next arrival sequence after the last tick: every input since has a
 *     higher one and still waits, so a restored inbox continues exactly where it was
 */
public record ForecastClock(Instant lastTick, Long recordedBelow, LocalDate slotMapDay,
    int fleetIdle, int fleetInUse, long inboxSeq) {

  /** Before the first tick. */
  public static final ForecastClock START = new ForecastClock(null, null, null, 0, 0, 0);
}
