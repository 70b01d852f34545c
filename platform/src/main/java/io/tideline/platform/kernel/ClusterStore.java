package io.tideline.platform.kernel;

import io.tideline.core.cluster.state.ClusterState;
import io.tideline.core.kernel.Table;
import io.tideline.events.LedgerHold;
import io.tideline.events.LedgerReservation;
import io.tideline.state.StoredAdmission;
import io.tideline.state.StoredBinding;
import io.tideline.state.StoredFacts;
import io.tideline.state.StoredJob;
import io.tideline.state.StoredNode;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.avro.specific.SpecificRecord;

/**
 * The store tables of {@link ClusterState} — the same in every kernel that keeps the cluster
 * (placement, preemption): which record each table holds, an entity as its record, and the state
 * back from the records.
 */
public final class ClusterStore {

  /** The record type of each of the cluster's tables. */
  public static final Map<String, Class<? extends SpecificRecord>> TYPES = Map.of(
      ClusterState.NODES, StoredNode.class,
      ClusterState.JOBS, StoredJob.class,
      ClusterState.ADMISSIONS, StoredAdmission.class,
      ClusterState.FACTS, StoredFacts.class,
      ClusterState.BINDINGS, StoredBinding.class,
      ClusterState.HOLDS, LedgerHold.class,
      ClusterState.RESERVATIONS, LedgerReservation.class);

  private ClusterStore() {}

  /** Whether {@code table} is one of the cluster's. */
  public static boolean owns(String table) {
    return TYPES.containsKey(table);
  }

  /** Entity {@code id} of the cluster's {@code table} as its record, or {@code null} if absent. */
  public static SpecificRecord record(ClusterState c, String table, String id) {
    return switch (table) {
      case ClusterState.NODES -> map(c.nodes().get(id), ClusterMapping::stored);
      case ClusterState.JOBS -> map(c.jobs().get(id), ClusterMapping::stored);
      case ClusterState.ADMISSIONS -> map(c.admissions().get(id), ClusterMapping::stored);
      case ClusterState.FACTS -> map(c.facts().get(id), ClusterMapping::stored);
      case ClusterState.BINDINGS -> map(c.bindings().get(id), ClusterMapping::stored);
      case ClusterState.HOLDS -> map(c.holds().get(id), ClusterMapping::hold);
      case ClusterState.RESERVATIONS -> map(c.reservations().get(id),
          ClusterMapping::reservation);
      default -> throw new IllegalArgumentException("not a cluster table: " + table);
    };
  }

  private static <T> SpecificRecord map(T v, Function<T, SpecificRecord> f) {
    return v == null ? null : f.apply(v);
  }

  /** The cluster a store held, at ledger version {@code version}. */
  public static ClusterState restore(Map<String, Map<String, SpecificRecord>> tables,
      long version) {
    return ClusterState.restore(
        table(tables, ClusterState.NODES, v -> ClusterMapping.node((StoredNode) v)),
        table(tables, ClusterState.JOBS, v -> ClusterMapping.job((StoredJob) v)),
        table(tables, ClusterState.ADMISSIONS,
            v -> ClusterMapping.admission((StoredAdmission) v)),
        table(tables, ClusterState.FACTS, v -> ClusterMapping.facts((StoredFacts) v)),
        table(tables, ClusterState.BINDINGS, v -> ClusterMapping.binding((StoredBinding) v)),
        table(tables, ClusterState.HOLDS, v -> ClusterMapping.hold((LedgerHold) v)),
        table(tables, ClusterState.RESERVATIONS,
            v -> ClusterMapping.reservation((LedgerReservation) v)),
        version);
  }

  /** One table of records as a kernel table. */
  public static <V> Table<V> table(Map<String, Map<String, SpecificRecord>> tables,
      String name, Function<SpecificRecord, V> f) {
    Map<String, V> rows = new HashMap<>();
    tables.getOrDefault(name, Map.of()).forEach((id, v) -> rows.put(id, f.apply(v)));
    return Table.of(name, rows);
  }
}
