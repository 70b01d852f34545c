package io.tideline.preemption.view;

import io.tideline.core.preemption.kernel.PreemptionPolicy;
import io.tideline.core.preemption.kernel.PreemptionState;
import io.tideline.events.PreemptionDecision;
import io.tideline.platform.kernel.HostRecord;
import io.tideline.platform.kernel.PreemptionHost;
import io.tideline.platform.ledger.KernelProcessor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.jboss.logging.Logger;

/**
 * Second stage: the single writer of each cluster's view — the platform's
 * {@link KernelProcessor} around the preemption kernel ({@link PreemptionHost}); every published
 * decision is also kept, by id, for {@code GET /decisions}. Nothing here decides.
 */
final class ViewProcessor extends KernelProcessor<Input, PreemptionState> {

  private static final Logger LOG = Logger.getLogger(ViewProcessor.class);

  private KeyValueStore<String, byte[]> decisions;

  ViewProcessor(PreemptionPolicy policy, PreemptionTopology.Avro avro) {
    this(new PreemptionHost(policy), avro, new Keep());
  }

  private ViewProcessor(PreemptionHost host, PreemptionTopology.Avro avro, Keep keep) {
    super(host, Input.class, Input.CLOCK, PreemptionTopology.VIEW_STORE, avro.serializer(),
        avro.deserializer(), keep);
    keep.processor = this;
  }

  @Override
  public void init(ProcessorContext<byte[], io.tideline.platform.ledger.Out> context) {
    super.init(context);
    this.decisions = context.getStateStore(PreemptionTopology.DECISION_STORE);
  }

  /** Keeps each published decision in the decision store (same transaction). */
  private static final class Keep implements Listener<PreemptionState> {
    ViewProcessor processor;

    @Override
    public void published(HostRecord record, byte[] bytes) {
      if (record.value() instanceof PreemptionDecision d) {
        processor.decisions.put(d.getDecisionId(), bytes);
      }
    }

    @Override
    public void deadLettered(String topic, String errorClass) {
      LOG.warnf("%s record dead-lettered (%s)", topic, errorClass);
    }
  }
}
