package io.tideline.preemption.view;

import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockTick;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PreemptionRequest;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaVerdict;
import io.tideline.platform.ledger.SingleWriterIntake;
import org.jboss.logging.Logger;

/**
 * What the view requires of its inputs: the type each input topic must carry, the checks that
 * keep a record from failing the view later, and the cluster each event belongs to (the default
 * cluster when an event names none). The intake itself (decode, dead-letter with the reason or
 * forward re-keyed to the cluster) is the platform's {@link SingleWriterIntake}, shared with
 * placement's ledger.
 */
final class IntakeRules implements SingleWriterIntake.Rules<Input> {

  private static final Logger LOG = Logger.getLogger(IntakeRules.class);

  private final PreemptionPolicy policy;

  private IntakeRules(PreemptionPolicy policy) {
    this.policy = policy;
  }

  /** The preemption topology's first stage, for one task; refusals are logged. */
  static SingleWriterIntake<Input> intake(PreemptionPolicy policy, PreemptionTopology.Avro avro) {
    return new SingleWriterIntake<>(new SingleWriterIntake.Setup<>("preemption", Input.class,
        Input.SUBMITTED, PreemptionTopology.VIEW_INPUT, avro.serializer(), avro.deserializer(),
        policy.defaultCluster(), new IntakeRules(policy),
        (meta, errorClass, reason) -> LOG.warnf("%s %d@%d dead-lettered (%s): %s", meta.topic(),
            meta.partition(), meta.offset(), errorClass, reason)));
  }

  /** Why the view could not use the event, or {@code null} when it can. */
  @Override
  public String check(Input input, Object event) {
    Class<?> expected = switch (input) {
      case INVENTORY -> NodeInventory.class;
      case SUBMITTED -> JobSubmitted.class;
      case VERDICT -> QuotaVerdict.class;
      case LIFECYCLE -> JobLifecycle.class;
      case RESERVATION -> CapacityReservation.class;
      case CLOCK -> ClockTick.class;
      case PLACEMENT -> PlacementDecision.class;
      case REQUEST -> PreemptionRequest.class;
      case RECLAIM -> QuotaReclaim.class;
    };
    if (!expected.isInstance(event)) {
      return "expected a " + expected.getSimpleName() + ", got "
          + (event == null ? "null" : event.getClass().getName());
    }
    if (event instanceof NodeInventory n) {
      if (n.getGpuCount() <= 0) {
        return "node " + n.getNodeId() + ": gpuCount must be positive, got " + n.getGpuCount();
      }
      if (n.getNodeId().isBlank()) {
        return "node id is blank";
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
    } else if (event instanceof QuotaReclaim q) {
      if (q.getCurrentGpus() < 0 || q.getRecommendedGpus() < 0) {
        return "reclaim of " + q.getJobId() + ": GPU counts must not be negative";
      }
    }
    return null;
  }

  @Override
  public String clusterOf(Object event) {
    String c = null;
    if (event instanceof NodeInventory n) {
      c = n.getCluster();
    } else if (event instanceof JobLifecycle l) {
      c = l.getCluster();
    } else if (event instanceof ClockTick t) {
      c = t.getCluster();
    } else if (event instanceof PlacementDecision d) {
      c = d.getCluster();
    } else if (event instanceof PreemptionRequest r) {
      c = r.getCluster();
    }
    return c == null || c.isBlank() ? policy.defaultCluster() : c;
  }
}
