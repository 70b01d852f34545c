package io.tideline.platform.intake;

import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockTick;
import io.tideline.events.JobLifecycle;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionRequest;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaVerdict;

/**
 * What makes a decoded event usable, whoever reads it: the checks a schema cannot express (a node
 * with GPUs, a share in (0, 1], a window that ends after it starts …) and the cluster an event
 * belongs to. One place, so placement's ledger and preemption's view refuse the same records with
 * the same reason (ADR 0003: bad input is dead-lettered with it).
 */
public final class EventChecks {

  private EventChecks() {}

  /**
   * Why {@code event} cannot be used as a {@code expected}, or {@code null} when it can: the type
   * first, then the event's own checks ({@link #problem}).
   */
  public static String problem(Class<?> expected, Object event) {
    if (!expected.isInstance(event)) {
      return "expected a " + expected.getSimpleName() + ", got "
          + (event == null ? "null" : event.getClass().getName());
    }
    return problem(event);
  }

  /** Why {@code event} is impossible, or {@code null}; events without extra checks pass. */
  public static String problem(Object event) {
    if (event instanceof NodeInventory n) {
      if (n.getGpuCount() <= 0) {
        return "node " + n.getNodeId() + ": gpuCount must be positive, got " + n.getGpuCount();
      }
      if (n.getNodeId().isBlank()) {
        return "node id is blank";
      }
    } else if (event instanceof QuotaVerdict v) {
      if (!(v.getFairShareUsage() >= 0) || Double.isInfinite(v.getFairShareUsage())) {
        return "verdict of " + v.getJobId() + ": fairShareUsage must be finite and not negative, got "
            + v.getFairShareUsage();
      }
    } else if (event instanceof CapacityReservation c) {
      if (!(c.getGpus() >= 0) || c.getGpus() > 1_000_000) {
        return "reservation " + c.getReservationId() + ": gpus must be in [0, 1e6], got "
            + c.getGpus();
      }
      if (c.getValidUntil().isBefore(c.getValidFrom())) {
        return "reservation " + c.getReservationId() + ": validUntil is before validFrom";
      }
    } else if (event instanceof PreemptionRequest r) {
      if (r.getRequestId().isBlank() || r.getPreemptorJobId().isBlank()) {
        return "preemption request without a request id or preemptor job id";
      }
      if (r.getLedgerVersion() < 0) {
        return "request " + r.getRequestId() + ": ledgerVersion must not be negative, got "
            + r.getLedgerVersion();
      }
      if (r.getShape() == null || r.getShape().getGpuCount() <= 0) {
        return "request " + r.getRequestId() + ": the shape needs at least one GPU";
      }
    } else if (event instanceof PlacementDecision d) {
      for (var a : d.getAssignments()) {
        if (!(a.getShare() > 0) || a.getShare() > 1 || a.getGpuIndex() < 0) {
          return "decision " + d.getDecisionId() + ": assignment " + a.getNodeId() + "/"
              + a.getGpuIndex() + " with share " + a.getShare() + " outside (0, 1]";
        }
      }
    } else if (event instanceof io.tideline.events.LedgerChange c) {
      if (c.getVersion() <= 0) {
        return "ledger change of " + c.getCluster() + ": version must be positive, got "
            + c.getVersion();
      }
      if (c.getChange() instanceof io.tideline.events.LedgerBound b) {
        for (var a : b.getAssignments()) {
          if (!(a.getShare() > 0) || a.getShare() > 1 || a.getGpuIndex() < 0) {
            return "ledger change v" + c.getVersion() + ": assignment " + a.getNodeId() + "/"
                + a.getGpuIndex() + " of " + b.getJobId() + " with share " + a.getShare()
                + " outside (0, 1]";
          }
        }
      }
    } else if (event instanceof QuotaReclaim q) {
      if (q.getCurrentGpus() < 0 || q.getRecommendedGpus() < 0) {
        return "reclaim of " + q.getJobId() + ": GPU counts must not be negative";
      }
    }
    return null;
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
