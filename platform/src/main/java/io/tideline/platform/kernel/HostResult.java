package io.tideline.platform.kernel;

import java.util.List;

/**
 * What offering one record to a {@link KernelHost} produced.
 *
 * @param state the state after the record
 * @param records the records to publish, in order
 * @param store the store writes
 * @param refused inputs refused (dead-letter them)
 * @param effects the kernel's effects, for meters and views
 * @param <S> the kernel's state
 */
public record HostResult<S>(S state, List<HostRecord> records, List<StoreOp> store,
    List<Refusal> refused, List<?> effects) {

  /**
   * A refused input.
   *
   * @param reason why
   * @param inboxSeq its inbox sequence when it was applied at a tick, -1 for the record offered
   */
  public record Refusal(String reason, long inboxSeq) {}
}
