package io.tideline.preemption.view;

import io.tideline.events.ClockTick;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeInventory;
import io.tideline.events.PreemptionRequest;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaVerdict;
import io.tideline.platform.intake.EventChecks;
import io.tideline.platform.ledger.SingleWriterIntake;
import io.tideline.platform.validation.InputBounds;
import org.jboss.logging.Logger;

/**
 * What the view requires of its inputs: the type each input topic must carry. The checks that
 * keep a record from failing it later are the platform's {@code EventValidator} (every consumer of
 * every topic shares them, ADR 0012); the cluster each event belongs to (the default cluster when
 * an event names none) is {@link EventChecks}'. The intake itself (decode, dead-letter with the reason or forward re-keyed to
 * the cluster) is the platform's {@link SingleWriterIntake}, shared with placement's ledger.
 */
final class IntakeRules implements SingleWriterIntake.Rules<Input> {

  private static final Logger LOG = Logger.getLogger(IntakeRules.class);

  private final io.tideline.core.preemption.kernel.PreemptionPolicy policy;

  private IntakeRules(io.tideline.core.preemption.kernel.PreemptionPolicy policy) {
    this.policy = policy;
  }

  /** The preemption topology's first stage, for one task; refusals are logged. */
  static SingleWriterIntake<Input> intake(io.tideline.core.preemption.kernel.PreemptionPolicy policy, PreemptionTopology.Avro avro,
      InputBounds bounds) {
    return new SingleWriterIntake<>(new SingleWriterIntake.Setup<>("preemption", Input.class,
        Input.SUBMITTED, PreemptionTopology.VIEW_INPUT, avro.serializer(), avro.deserializer(),
        policy.cluster(), new IntakeRules(policy),
        (meta, errorClass, reason) -> LOG.warnf("%s %d@%d dead-lettered (%s): %s", meta.topic(),
            meta.partition(), meta.offset(), errorClass, reason), bounds));
  }

  /** The event type each input carries; the platform checks the rest. */
  @Override
  public Class<?> type(Input input) {
    return switch (input) {
      case INVENTORY -> NodeInventory.class;
      case SUBMITTED -> JobSubmitted.class;
      case VERDICT -> QuotaVerdict.class;
      case LIFECYCLE -> JobLifecycle.class;
      case CLOCK -> ClockTick.class;
      case LEDGER -> io.tideline.events.LedgerChange.class;
      case REQUEST -> PreemptionRequest.class;
      case RECLAIM -> QuotaReclaim.class;
    };
  }

  @Override
  public String clusterOf(Object event) {
    return EventChecks.clusterOf(event, policy.cluster());
  }
}
