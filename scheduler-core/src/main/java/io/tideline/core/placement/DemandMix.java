package io.tideline.core.placement;

import io.tideline.core.model.JobRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The expected pod-shape distribution the fragmentation score measures against (ADR 0037): the
 * heaviest {@code maxShapes} distinct shapes, weights normalised to 1. Built from the requests
 * that are expected (a trace's pods, the recent submissions) by {@link #of}.
 *
 * @param shapes the shapes, heaviest first (ties: fewer GPUs, smaller share, less CPU, less
 *     memory, models' text), weights summing to 1; empty = no fragmentation term
 */
public record DemandMix(List<DemandShape> shapes) {

  /** No expected demand: the fragmentation term is 0 everywhere. */
  public static final DemandMix EMPTY = new DemandMix(List.of());

  /** Default cap on distinct shapes (the score's cost is linear in it). */
  public static final int DEFAULT_MAX_SHAPES = 32;

  private static final Comparator<DemandShape> ORDER = Comparator
      .comparingDouble((DemandShape s) -> -s.weight())
      .thenComparingInt(DemandShape::gpus).thenComparingDouble(DemandShape::share)
      .thenComparingLong(DemandShape::cpuMillis).thenComparingLong(DemandShape::memoryBytes)
      .thenComparing(s -> String.join("|", s.models()));

  public DemandMix {
    double total = 0;
    for (DemandShape s : shapes) {
      total += s.weight();
    }
    List<DemandShape> out = new ArrayList<>(shapes.size());
    for (DemandShape s : shapes) {
      out.add(s.weighted(s.weight() / total));
    }
    out.sort(ORDER);
    shapes = List.copyOf(out);
  }

  /**
   * The mix of {@code jobs}' worker shapes weighted by how often each occurs (the published
   * fragmentation measure's pod-type popularity), capped at the heaviest {@code maxShapes}.
   * Workers alike in GPUs, share and allowed models are one shape asking their mean CPU and
   * memory (rounded down), so a trace whose CPU and memory vary pod by pod still yields a few
   * heavy shapes. Jobs without GPUs are left out (they leave no GPU unusable).
   */
  public static DemandMix of(List<JobRequest> jobs, int maxShapes) {
    Map<DemandShape, long[]> sums = new LinkedHashMap<>();
    for (JobRequest j : jobs) {
      DemandShape s = DemandShape.of(j, 1.0);
      if (s != null) {
        long[] a = sums.computeIfAbsent(
            new DemandShape(s.gpus(), s.share(), 0, 0, s.models(), 1.0), k -> new long[3]);
        a[0]++;
        a[1] += s.cpuMillis();
        a[2] += s.memoryBytes();
      }
    }
    List<DemandShape> all = new ArrayList<>();
    sums.forEach((s, a) -> all.add(new DemandShape(s.gpus(), s.share(), a[1] / a[0],
        a[2] / a[0], s.models(), a[0])));
    all.sort(ORDER);
    return all.isEmpty() ? EMPTY : new DemandMix(all.subList(0, Math.min(maxShapes, all.size())));
  }

  public boolean isEmpty() {
    return shapes.isEmpty();
  }
}
