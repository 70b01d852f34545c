package io.tideline.core.slots;

import io.tideline.core.trace.TraceEntry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.commons.math3.ml.clustering.CentroidCluster;
import org.apache.commons.math3.ml.clustering.Clusterable;
import org.apache.commons.math3.ml.clustering.KMeansPlusPlusClusterer;
import org.apache.commons.math3.ml.distance.EuclideanDistance;
import org.apache.commons.math3.random.Well19937c;

/**
 * The F4 time-slot engine: finds peak, flat and trough slots from history instead of a hand-made
 * timetable, so the classes follow the tide as it moves.
 *
 * <p>It clusters the fleet's usage profile (one value per slot of the day, e.g. mean GPUs in use
 * over the rolling window) with Apache Commons Math's K-means++ into four clusters and names them
 * by centroid: lowest {@link SlotClass#DEEP_TROUGH}, then {@link SlotClass#TROUGH},
 * {@link SlotClass#FLAT}, highest {@link SlotClass#PEAK}. The random generator is seeded from the
 * config, so one profile always gives one map (O2 replay).
 */
public final class SlotClassifier {

  private static final SlotClass[] ORDER = SlotClass.values();
  private static final String RULE = "F4 K-means slot classes";

  private final SlotClassifierConfig config;

  public SlotClassifier(SlotClassifierConfig config) {
    this.config = config;
  }

  /**
   * Classifies every slot of {@code grid} from {@code profile}.
   *
   * @param grid the slot grid; {@code profile.length} must equal {@code grid.slotsPerDay()}
   * @param profile usage per slot index (finite, not negative)
   * @return the slot map with its trace
   */
  public SlotMap classify(SlotGrid grid, double[] profile) {
    // 1. Validate the profile against the grid.
    if (profile.length != grid.slotsPerDay()) {
      throw new IllegalArgumentException(
          "profile has " + profile.length + " slots, grid has " + grid.slotsPerDay());
    }
    List<SlotPoint> points = new ArrayList<>(profile.length);
    for (int slot = 0; slot < profile.length; slot++) {
      double usage = profile[slot];
      if (!Double.isFinite(usage) || usage < 0) {
        throw new IllegalArgumentException("slot " + slot + " has invalid usage " + usage);
      }
      points.add(new SlotPoint(slot, usage));
    }
    List<TraceEntry> trace = new ArrayList<>();

    // 2. Fewer distinct levels than classes: K-means cannot separate four clusters; say so.
    long distinct = Arrays.stream(profile).distinct().count();
    if (distinct < ORDER.length) {
      trace.add(new TraceEntry("profile", RULE, "all FLAT", String.format(Locale.ROOT,
          "%d distinct usage levels < %d classes: no peak or trough can be told apart",
          distinct, ORDER.length)));
      List<SlotClass> flat = new ArrayList<>();
      for (int slot = 0; slot < profile.length; slot++) {
        flat.add(SlotClass.FLAT);
      }
      double mean = Arrays.stream(profile).average().orElse(0);
      return new SlotMap(grid, flat, Map.of(SlotClass.FLAT, mean), trace);
    }

    // 3. Cluster with a seeded K-means++ (deterministic for a given profile and seed).
    KMeansPlusPlusClusterer<SlotPoint> clusterer = new KMeansPlusPlusClusterer<>(
        ORDER.length, config.maxIterations(), new EuclideanDistance(),
        new Well19937c(config.seed()));
    List<CentroidCluster<SlotPoint>> clusters = new ArrayList<>(clusterer.cluster(points));

    // 4. Order clusters by centroid, tie-broken by their lowest slot index, and name them.
    clusters.removeIf(c -> c.getPoints().isEmpty());
    clusters.sort(Comparator
        .comparingDouble((CentroidCluster<SlotPoint> c) -> c.getCenter().getPoint()[0])
        .thenComparingInt(c -> c.getPoints().stream().mapToInt(SlotPoint::slot).min().orElse(0)));
    SlotClass[] bySlot = new SlotClass[profile.length];
    Map<SlotClass, Double> centroids = new EnumMap<>(SlotClass.class);
    int offset = ORDER.length - clusters.size(); // empty clusters drop the lowest class names
    for (int i = 0; i < clusters.size(); i++) {
      CentroidCluster<SlotPoint> cluster = clusters.get(i);
      SlotClass slotClass = ORDER[i + offset];
      double centroid = cluster.getCenter().getPoint()[0];
      centroids.put(slotClass, centroid);
      int[] slots = cluster.getPoints().stream().mapToInt(SlotPoint::slot).sorted().toArray();
      for (int slot : slots) {
        bySlot[slot] = slotClass;
      }
      trace.add(new TraceEntry("cluster " + i, RULE, slotClass.name(), String.format(Locale.ROOT,
          "centroid %.3f, %d slots, from %.3f to %.3f (seed %d)", centroid, slots.length,
          cluster.getPoints().stream().mapToDouble(SlotPoint::usage).min().orElse(0),
          cluster.getPoints().stream().mapToDouble(SlotPoint::usage).max().orElse(0),
          config.seed())));
    }
    return new SlotMap(grid, Arrays.asList(bySlot), centroids, trace);
  }

  /** One slot of the profile as a one-dimensional point for K-means. */
  private record SlotPoint(int slot, double usage) implements Clusterable {
    @Override
    public double[] getPoint() {
      return new double[] {usage};
    }
  }
}
