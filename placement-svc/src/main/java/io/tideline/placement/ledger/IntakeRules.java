package io.tideline.placement.ledger;

import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockTick;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeInventory;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.SlotForecast;
import io.tideline.platform.intake.EventChecks;
import io.tideline.platform.ledger.SingleWriterIntake;
import io.tideline.platform.validation.InputBounds;

/**
 * What the ledger requires of its inputs: the type each input topic must carry. The checks that
 * keep a record from failing it later are the platform's {@code EventValidator} (every consumer of
 * every topic shares them, ADR 0012), the cluster each event belongs to is {@link EventChecks}'. The intake
 * itself (decode, dead-letter with the reason or forward re-keyed to the cluster) is the
 * platform's {@link SingleWriterIntake}, shared with preemption's view.
 */
final class IntakeRules implements SingleWriterIntake.Rules<Input> {

  private final io.tideline.core.scheduling.PlacementPolicy policy;

  private IntakeRules(io.tideline.core.scheduling.PlacementPolicy policy) {
    this.policy = policy;
  }

  /** The ledger topology's first stage, for one task; refusals are counted in {@code meters}. */
  static SingleWriterIntake<Input> intake(io.tideline.core.scheduling.PlacementPolicy policy, PlacementTopology.Serdes2 avro,
      PlacementMeters meters, InputBounds bounds) {
    return new SingleWriterIntake<>(new SingleWriterIntake.Setup<>("placement", Input.class,
        Input.SUBMITTED, PlacementTopology.LEDGER_INPUT, avro.serializer(), avro.deserializer(),
        policy.cluster(), new IntakeRules(policy),
        (meta, errorClass, reason) -> meters.deadLettered(meta.topic(), errorClass), bounds));
  }

  /** The event type each input carries; the platform checks the rest. */
  @Override
  public Class<?> type(Input input) {
    return switch (input) {
      case INVENTORY -> NodeInventory.class;
      case SUBMITTED -> JobSubmitted.class;
      case VERDICT -> QuotaVerdict.class;
      case LIFECYCLE -> JobLifecycle.class;
      case RESERVATION -> CapacityReservation.class;
      case CLOCK -> ClockTick.class;
      case FORECAST -> SlotForecast.class;
      case PREEMPTION_DECISION -> PreemptionDecision.class;
      case RECLAIM -> QuotaReclaim.class;
    };
  }

  @Override
  public String clusterOf(Object event) {
    return EventChecks.clusterOf(event, policy.cluster());
  }
}
