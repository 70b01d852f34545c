package io.tideline.platform.kernel;

import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;

/**
 * One write of a kernel's state to its store: entity {@code id} of {@code table} becomes
 * {@code value} ({@code null}: deleted). The service keys it {@code cluster|table|id} in its
 * changelogged store, in the same transaction as the step's records.
 *
 * @param table the state table
 * @param id the entity id
 * @param value the entity as its store record, or {@code null}
 */
public record StoreOp(String table, String id, SpecificRecord value) {

  public StoreOp {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(id, "id");
  }
}
