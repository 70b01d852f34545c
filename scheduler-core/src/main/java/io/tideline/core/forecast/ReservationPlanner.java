package io.tideline.core.forecast;

import io.tideline.core.trace.TraceEntry;
import io.tideline.core.forecast.ReservationEvent.Type;
import io.tideline.core.slots.SlotGrid;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Turns a service's forecast and position into reservation events (F2, F3), so online capacity is
 * ready before the tide rises and given back when it does not.
 *
 * <p>Pure: it reads {@code now}, the forecast of the slot starting at {@code now + leadTime} and
 * the service's position, and returns events plus a rule trace. It is called on every clock tick;
 * the reserve and release rules fire only at their exact instants ({@code slotStart - leadTime}
 * and {@code until - releaseEarly}), so each fires once per slot and an audit replay of the same
 * ticks reproduces the same events. A missed tick means no reservation for that slot, which the
 * over-issue rule then covers (F3).
 */
public final class ReservationPlanner {

  private static final String RULE_RESERVE = "F2 reserve ahead";
  private static final String RULE_RELEASE = "F3 early release";
  private static final String RULE_OVER_ISSUE = "F3 over-issue";

  private final ReservationConfig config;
  private final SlotGrid grid;

  public ReservationPlanner(ReservationConfig config, SlotGrid grid) {
    this.config = config;
    this.grid = grid;
  }

  /**
   * Decides the reservation events of one service at {@code now}.
   *
   * @param now event time of the tick
   * @param next forecast of the service's slot starting at {@code now + leadTime}, or of the next
   *     slot when no slot starts exactly then (the reserve rule then does not fire)
   * @param position what the service holds and needs now
   */
  public ReservationDecision plan(Instant now, SlotForecast next, ServicePosition position) {
    if (!next.serviceId().equals(position.serviceId())) {
      throw new IllegalArgumentException(
          "forecast of " + next.serviceId() + " for position of " + position.serviceId());
    }
    List<ReservationEvent> events = new ArrayList<>();
    List<TraceEntry> trace = new ArrayList<>();
    String service = position.serviceId();

    // 1. Over-forecast: release unused reserved GPUs exactly releaseEarly before the end.
    ActiveReservation reservation = position.reservation();
    if (reservation == null) {
      trace.add(new TraceEntry(service, RULE_RELEASE, "nothing to release", "no reservation"));
    } else {
      Instant releaseAt = reservation.until().minus(config.releaseEarly());
      if (!now.equals(releaseAt)) {
        trace.add(new TraceEntry(service, RULE_RELEASE, "not due", "release check at "
            + releaseAt + " (" + minutes(config.releaseEarly()) + " before " + reservation.until()
            + ")"));
      } else if (reservation.unusedGpus() == 0) {
        trace.add(new TraceEntry(service, RULE_RELEASE, "kept", String.format(Locale.ROOT,
            "all %d reserved GPUs in use", reservation.gpus())));
      } else {
        String reason = String.format(Locale.ROOT,
            "%d of %d reserved GPUs unused %s before the reservation ends at %s",
            reservation.unusedGpus(), reservation.gpus(), minutes(config.releaseEarly()),
            reservation.until());
        events.add(new ReservationEvent(Type.RELEASE, service, reservation.unusedGpus(),
            reservation.unusedGpus(), now, now,
            reservation.until(), config.quantile(), reason));
        trace.add(new TraceEntry(service, RULE_RELEASE,
            "RELEASE " + reservation.unusedGpus() + " GPUs", reason));
      }
    }

    // 2. Forecast rise: reserve exactly leadTime before the slot starts.
    Instant slotStart = now.plus(config.leadTime());
    if (!next.slotStart().equals(slotStart) || !grid.isSlotStart(slotStart)) {
      trace.add(new TraceEntry(service, RULE_RESERVE, "not due", "forecast slot starts at "
          + next.slotStart() + ", " + minutes(Duration.between(now, next.slotStart()))
          + " ahead; reserve only at " + minutes(config.leadTime()) + " ahead"));
    } else if (next.basis() == ForecastBasis.NO_HISTORY) {
      trace.add(new TraceEntry(service, RULE_RESERVE, "no reservation",
          "no history for the slot starting " + slotStart));
    } else {
      int target = next.wholeGpus(config.quantile());
      int carried = reservation != null && !reservation.until().isAfter(slotStart)
          ? reservation.gpus() : 0;
      int base = Math.max(0, position.heldGpus() - carried);
      String figures = String.format(Locale.ROOT,
          "forecast %s %.2f -> %d GPUs (%s) for %s..%s vs held %d%s", config.quantile(),
          next.value(config.quantile()), target, next.basis(), slotStart, next.slotEnd(), base,
          carried > 0 ? " (held " + position.heldGpus() + " minus reservation ending then "
              + carried + ")" : "");
      if (target > base) {
        // the part the start evicts for (ADR 0039); the rest is reclaimed when an instance waits
        int expected = switch (config.startEviction()) {
          case RESERVED -> target - base;
          case MEDIAN -> Math.max(0, Math.min(target - base,
              next.wholeGpus(Quantile.P50) - base));
          case ON_WAIT -> 0;
        };
        figures += String.format(Locale.ROOT, "; start evicts for %d (%s, median %.2f)",
            expected, config.startEviction(), next.value(Quantile.P50));
        events.add(new ReservationEvent(Type.RESERVE, service, target - base, expected, now,
            slotStart, next.slotEnd(), config.quantile(), figures));
        trace.add(new TraceEntry(service, RULE_RESERVE, "RESERVE " + (target - base) + " GPUs",
            figures));
      } else {
        trace.add(new TraceEntry(service, RULE_RESERVE, "no reservation", figures));
      }
    }

    // 3. Under-forecast: demand above what is held draws on the shared pool, capped.
    int shortfall = position.demandGpus() - position.heldGpus() - position.overIssuedGpus();
    if (shortfall <= 0) {
      trace.add(new TraceEntry(service, RULE_OVER_ISSUE, "not needed", String.format(Locale.ROOT,
          "demand %d <= held %d + over-issued %d", position.demandGpus(), position.heldGpus(),
          position.overIssuedGpus())));
    } else {
      int capRoom = Math.max(0, config.maxOverIssueGpus() - position.overIssuedGpus());
      int grant = Math.min(shortfall, Math.min(capRoom, position.sharedPoolIdleGpus()));
      String figures = String.format(Locale.ROOT,
          "demand %d > held %d + over-issued %d: short %d; cap %d leaves %d, pool idle %d",
          position.demandGpus(), position.heldGpus(), position.overIssuedGpus(), shortfall,
          config.maxOverIssueGpus(), capRoom, position.sharedPoolIdleGpus());
      if (grant > 0) {
        Instant until = grid.slotEndOf(now);
        events.add(new ReservationEvent(Type.OVER_ISSUE, service, grant, grant, now, now, until,
            config.quantile(), figures));
        trace.add(new TraceEntry(service, RULE_OVER_ISSUE, "OVER_ISSUE " + grant + " GPUs"
            + (grant < shortfall ? " (capped)" : "") + " until " + until, figures));
      } else {
        trace.add(new TraceEntry(service, RULE_OVER_ISSUE, "refused", figures));
      }
    }
    return new ReservationDecision(events, trace);
  }

  private static String minutes(Duration duration) {
    long seconds = duration.toSeconds();
    return seconds % 60 == 0 ? (seconds / 60) + " min" : seconds + " s";
  }
}
