package io.tideline.core.forecast.kernel;

import io.tideline.core.slots.SlotClass;
import io.tideline.core.trace.TraceEntry;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The F4 slot map of one local day, as published on {@code forecast.slotmap} and kept to tag each
 * slot forecast with its class.
 *
 * @param cluster the cluster
 * @param day the local day it was computed for
 * @param zone the zone of the day
 * @param slotMinutes slot length, minutes
 * @param classes class of each slot of the day, by index
 * @param profile the fleet profile clustered (sum of the online services' mean profiles), GPUs
 * @param centroids mean usage of each class that occurs
 * @param services services whose profiles were summed
 * @param computedAt tick time of the computation
 * @param trace how the classes were found
 */
public record SlotMapRecord(String cluster, LocalDate day, String zone, int slotMinutes,
    List<SlotClass> classes, List<Double> profile, SortedMap<SlotClass, Double> centroids,
    int services, Instant computedAt, List<TraceEntry> trace) {

  public SlotMapRecord {
    Objects.requireNonNull(cluster, "cluster");
    Objects.requireNonNull(day, "day");
    classes = List.copyOf(classes);
    profile = List.copyOf(profile);
    centroids = Collections.unmodifiableSortedMap(new TreeMap<>(centroids));
    trace = List.copyOf(trace);
  }
}
