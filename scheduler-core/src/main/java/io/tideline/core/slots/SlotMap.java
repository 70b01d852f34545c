package io.tideline.core.slots;

import io.tideline.core.trace.TraceEntry;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The outcome of the F4 slot engine: every slot of the day with its class, the cluster centroids
 * that define the classes, and the rule trace. Immutable; re-evaluated periodically by the
 * forecaster service and published as a whole.
 *
 * @param grid the slot grid the indices refer to
 * @param classes class of each slot, indexed by slot index ({@code grid.slotsPerDay()} entries)
 * @param centroids mean usage of each class that occurs (same unit as the profile, e.g. GPUs)
 * @param trace how the classes were found
 */
public record SlotMap(
    SlotGrid grid,
    List<SlotClass> classes,
    Map<SlotClass, Double> centroids,
    List<TraceEntry> trace) {

  public SlotMap {
    Objects.requireNonNull(grid, "grid");
    classes = List.copyOf(classes);
    centroids = Collections.unmodifiableMap(new TreeMap<>(centroids));
    trace = List.copyOf(trace);
    if (classes.size() != grid.slotsPerDay()) {
      throw new IllegalArgumentException(
          "need one class per slot: " + classes.size() + " != " + grid.slotsPerDay());
    }
  }

  /** Class of slot {@code index}. */
  public SlotClass classOf(int index) {
    return classes.get(index);
  }

  /** Class of the slot holding {@code at}. */
  public SlotClass classAt(Instant at) {
    return classes.get(grid.slotIndex(at));
  }
}
