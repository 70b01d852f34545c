package io.tideline.platform.intake;

import io.tideline.events.ClockTick;
import io.tideline.events.JobLifecycle;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionRequest;
import io.tideline.platform.validation.EventValidator;
import io.tideline.platform.validation.InputBounds;

/**
 * What makes a decoded event usable, whoever reads it, and the cluster an event belongs to. The
 * checks themselves are the platform's {@link EventValidator} (ADR 0012), so every consumer
 * refuses the same records with the same reason (ADR 0003: bad input is dead-lettered with it).
 */
public final class EventChecks {

  private EventChecks() {}

  private static final EventValidator DEFAULT = new EventValidator(InputBounds.DEFAULTS);

  /**
   * Why {@code event} cannot be used as a {@code expected}, or {@code null} when it can: the type
   * first, then the platform's {@link EventValidator} with the default bounds (the intakes use
   * it with the configured ones).
   */
  public static String problem(Class<?> expected, Object event) {
    if (!expected.isInstance(event)) {
      return "expected a " + expected.getSimpleName() + ", got "
          + (event == null ? "null" : event.getClass().getName());
    }
    return problem(event);
  }

  /** Why {@code event} is impossible, or {@code null} (default bounds, no record timestamp). */
  public static String problem(Object event) {
    return DEFAULT.problem("", null, event, -1);
  }

  /**
   * The cluster an event names, or {@code defaultCluster} when it names none (blank) or its type
   * carries no cluster (submissions, verdicts, reservations, forecasts: one cluster per topic set).
   */
  public static String clusterOf(Object event, String defaultCluster) {
    String c = null;
    if (event instanceof NodeInventory n) {
      c = n.getCluster();
    } else if (event instanceof JobLifecycle l) {
      c = l.getCluster();
    } else if (event instanceof ClockTick t) {
      c = t.getCluster();
    } else if (event instanceof PlacementDecision d) {
      c = d.getCluster();
    } else if (event instanceof PreemptionDecision d) {
      c = d.getCluster();
    } else if (event instanceof PreemptionRequest r) {
      c = r.getCluster();
    } else if (event instanceof io.tideline.events.LedgerChange l) {
      c = l.getCluster();
    }
    return c == null || c.isBlank() ? defaultCluster : c;
  }
}
