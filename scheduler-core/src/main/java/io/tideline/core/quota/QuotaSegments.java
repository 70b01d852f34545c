package io.tideline.core.quota;

import io.tideline.core.trace.TraceEntry;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The fleet cut into the three segments of requirement Q1: online guaranteed (locked), offline
 * guaranteed (key training) and the shared pool lent out by idleness. Not a hard split: the shared
 * pool is whatever the guarantees leave.
 *
 * @param fleetGpus GPUs in the fleet
 * @param onlineGuaranteed sum of the per-service online guarantees
 * @param offlineGuaranteed sum of the key training jobs' minimum GPUs
 * @param sharedPool fleet minus both guarantees, never negative
 * @param overcommitted GPUs by which the guarantees exceed the fleet (0 when they fit)
 * @param onlineByService each online service's guarantee, by service id
 * @param trace how each figure was computed
 */
public record QuotaSegments(
    double fleetGpus,
    double onlineGuaranteed,
    double offlineGuaranteed,
    double sharedPool,
    double overcommitted,
    SortedMap<String, Double> onlineByService,
    List<TraceEntry> trace) {

  public QuotaSegments {
    onlineByService = Collections.unmodifiableSortedMap(new TreeMap<>(onlineByService));
    trace = List.copyOf(trace);
  }
}
