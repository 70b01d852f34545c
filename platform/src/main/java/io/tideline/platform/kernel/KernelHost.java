package io.tideline.platform.kernel;

import io.tideline.events.LedgerInput;
import java.time.Instant;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.avro.specific.SpecificRecord;

/**
 * A kernel behind its contracts: what a service's single writer and the in-process twin call.
 * Pure — no Kafka clients, no stores: records in, records and store writes out.
 *
 * @param <S> the kernel's state
 */
public interface KernelHost<S> {

  /** The state of a cluster nothing is known of. */
  S empty();

  /** The cluster time the state has reached (its last tick), or {@code null}. */
  Instant clock(S state);

  /**
   * Offers one record of {@code topic}: decode, step, encode. {@code envelope}: the record as
   * read (stored while it waits in the inbox), or {@code null} where nothing is persisted.
   */
  HostResult<S> offer(Instant now, S state, String topic, SpecificRecord value,
      LedgerInput envelope);

  /**
   * A host whose state the platform's {@link io.tideline.platform.ledger.KernelProcessor}
   * persists: one store of typed records, {@code cluster|table|id}.
   *
   * @param <S> the kernel's state
   */
  interface Stored<S> extends KernelHost<S> {

    /** The record type of each store table. */
    Map<String, Class<? extends SpecificRecord>> storeTypes();

    /**
     * The state a store held: tables of records by id, and a decoder for the inbox entries'
     * original bytes ({@code (topic, bytes) → record}).
     */
    S restore(Map<String, Map<String, SpecificRecord>> tables,
        BiFunction<String, byte[], SpecificRecord> decoder);
  }
}
