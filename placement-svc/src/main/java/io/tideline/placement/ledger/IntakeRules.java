package io.tideline.placement.ledger;

import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockTick;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeInventory;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.SlotForecast;
import io.tideline.platform.ledger.SingleWriterIntake;

/**
 * What the ledger requires of its inputs: the type each input topic must carry, the checks that
 * keep a record from failing the ledger later, and the cluster each event belongs to. The intake
 * itself (decode, dead-letter with the reason or forward re-keyed to the cluster) is the
 * platform's {@link SingleWriterIntake}, shared with preemption's view.
 */
final class IntakeRules implements SingleWriterIntake.Rules<Input> {

  private final LedgerPolicy policy;

  private IntakeRules(LedgerPolicy policy) {
    this.policy = policy;
  }

  /** The ledger topology's first stage, for one task; refusals are counted in {@code meters}. */
  static SingleWriterIntake<Input> intake(LedgerPolicy policy, PlacementTopology.Serdes2 avro,
      PlacementMeters meters) {
    return new SingleWriterIntake<>(new SingleWriterIntake.Setup<>("placement", Input.class,
        Input.SUBMITTED, PlacementTopology.LEDGER_INPUT, avro.serializer(), avro.deserializer(),
        policy.defaultCluster(), new IntakeRules(policy),
        (meta, errorClass, reason) -> meters.deadLettered(meta.topic(), errorClass)));
  }

  /** Why the ledger could not use the event, or {@code null} when it can. */
  @Override
  public String check(Input input, Object event) {
    Class<?> expected = switch (input) {
      case INVENTORY -> NodeInventory.class;
      case SUBMITTED -> JobSubmitted.class;
      case VERDICT -> QuotaVerdict.class;
      case LIFECYCLE -> JobLifecycle.class;
      case RESERVATION -> CapacityReservation.class;
      case CLOCK -> ClockTick.class;
      case FORECAST -> SlotForecast.class;
      case PREEMPTION_DECISION -> PreemptionDecision.class;
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
    }
    return null;
  }

  @Override
  public String clusterOf(Object event) {
    if (event instanceof NodeInventory n) {
      return n.getCluster();
    } else if (event instanceof JobLifecycle l) {
      return l.getCluster();
    } else if (event instanceof ClockTick t) {
      return t.getCluster();
    } else if (event instanceof PreemptionDecision d) {
      return d.getCluster();
    }
    return policy.defaultCluster();
  }
}
