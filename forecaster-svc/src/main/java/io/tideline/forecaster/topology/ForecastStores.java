package io.tideline.forecaster.topology;

import io.tideline.core.forecast.kernel.ForecastState;
import java.util.List;

/**
 * Names of the topology's state stores: one per table of the forecast kernel's state
 * ({@code forecaster-<table>}, value = the table's {@code io.tideline.state} store record) and
 * the inbox ({@code forecaster-inbox}: arrival sequence -> the waiting input's original envelope,
 * a {@code LedgerInput} kept in the registry encoding it arrived in). Each is changelogged, so a new instance or a fresh state directory
 * restores the same state.
 */
public final class ForecastStores {

  /** The waiting inputs: arrival sequence -> {@code LedgerInput} (topic, partition, offset, bytes). */
  public static final String INBOX = "forecaster-inbox";

  private ForecastStores() {}

  /** The store of kernel table {@code table}. */
  public static String of(String table) {
    return "forecaster-" + table;
  }

  /** Every store: the kernel's tables, then the inbox. */
  public static List<String> all() {
    List<String> out = new java.util.ArrayList<>();
    ForecastState.TABLES.forEach(t -> out.add(of(t)));
    out.add(INBOX);
    return out;
  }
}
