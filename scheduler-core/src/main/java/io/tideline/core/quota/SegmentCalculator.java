package io.tideline.core.quota;

import io.tideline.core.trace.TraceEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Computes the three Q1 segments from the fleet size, each online service's historical peak and the
 * minimum GPUs of the key training jobs. Online guarantees are whole GPUs (the fraction of the peak
 * rounded up) because they are locked devices; the shared pool is the remainder.
 */
public final class SegmentCalculator {

  private final QuotaConfig config;

  public SegmentCalculator(QuotaConfig config) {
    this.config = config;
  }

  /** One service's online guarantee for a historical peak: ceil(fraction × peak), never negative. */
  public double onlineGuarantee(double peakGpus) {
    if (!(peakGpus > 0)) {
      return 0;
    }
    // Subtract a micro-GPU before ceil so 0.7 × 10 = 7.000000000000001 stays 7.
    return Math.ceil(config.onlineGuaranteeFraction() * peakGpus - Gpus.EPS);
  }

  /**
   * The segments.
   *
   * @param fleetGpus GPUs in the fleet
   * @param onlinePeaks historical peak GPUs by online service id
   * @param keyTrainingMinGpus minimum GPUs by key training job id
   */
  public QuotaSegments compute(
      double fleetGpus, Map<String, Double> onlinePeaks, Map<String, Double> keyTrainingMinGpus) {
    List<TraceEntry> trace = new ArrayList<>();
    // 1. Online guaranteed: fraction of each service's peak, in service-id order.
    SortedMap<String, Double> byService = new TreeMap<>();
    double online = 0;
    for (Map.Entry<String, Double> e : new TreeMap<>(onlinePeaks).entrySet()) {
      double g = onlineGuarantee(e.getValue());
      byService.put(e.getKey(), g);
      online += g;
      trace.add(new TraceEntry(e.getKey(), "Q1 online guaranteed", "locked " + Gpus.fmt(g),
          "ceil(" + Gpus.fmt(config.onlineGuaranteeFraction()) + " × peak "
              + Gpus.fmt(e.getValue()) + ")"));
    }
    // 2. Offline guaranteed: the key training jobs' minimum GPUs.
    double offline = 0;
    for (Map.Entry<String, Double> e : new TreeMap<>(keyTrainingMinGpus).entrySet()) {
      double min = Math.max(0, e.getValue());
      offline += min;
      trace.add(new TraceEntry(e.getKey(), "Q1 offline guaranteed", "reserved " + Gpus.fmt(min),
          "key training job minimum GPUs"));
    }
    // 3. Shared pool: whatever the guarantees leave; flag an overcommitted fleet.
    double guaranteed = online + offline;
    double shared = Math.max(0, fleetGpus - guaranteed);
    double over = Math.max(0, guaranteed - fleetGpus);
    trace.add(new TraceEntry("fleet", "Q1 shared pool", over > 0 ? "overcommitted" : "lent by idleness",
        "fleet " + Gpus.fmt(fleetGpus) + " − online " + Gpus.fmt(online) + " − offline "
            + Gpus.fmt(offline) + " = " + Gpus.fmt(fleetGpus - guaranteed)));
    return new QuotaSegments(Gpus.snap(fleetGpus), Gpus.snap(online), Gpus.snap(offline),
        Gpus.snap(shared), Gpus.snap(over), byService, trace);
  }
}
