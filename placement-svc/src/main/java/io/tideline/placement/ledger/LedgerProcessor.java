package io.tideline.placement.ledger;

import io.tideline.core.scheduling.PlacementPolicy;
import io.tideline.core.scheduling.PlacementState;
import io.tideline.platform.kernel.HostResult;
import io.tideline.platform.kernel.PlacementHost;
import io.tideline.platform.ledger.KernelProcessor;

/**
 * Second stage: the single writer of each cluster's ledger — the platform's
 * {@link KernelProcessor} around the placement kernel ({@link PlacementHost}), with placement's
 * meters. Nothing here decides.
 */
final class LedgerProcessor extends KernelProcessor<Input, PlacementState> {

  LedgerProcessor(PlacementPolicy policy, PlacementTopology.Serdes2 avro,
      PlacementMeters meters) {
    this(new PlacementHost(policy), avro, meters);
  }

  private LedgerProcessor(PlacementHost host, PlacementTopology.Serdes2 avro,
      PlacementMeters meters) {
    super(host, Input.class, Input.CLOCK, PlacementTopology.STORE, avro.serializer(),
        avro.deserializer(), new Listener<>() {
          @Override
          public void stepped(String cluster, HostResult<PlacementState> r, boolean tick) {
            meters.step(cluster, r, host, tick);
          }

          @Override
          public void deadLettered(String topic, String errorClass) {
            meters.deadLettered(topic, errorClass);
          }
        });
  }
}
