package io.tideline.core.quota;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reviews the online guarantees when historical peaks move (requirement Q5: guarantees follow the
 * tides, they are not fixed once). Compares the guarantee each service had under its old peak with
 * the one its new peak gives, and reports only the services whose guarantee actually changed.
 */
public final class GuaranteeReview {

  private final SegmentCalculator segments;

  public GuaranteeReview(QuotaConfig config) {
    this.segments = new SegmentCalculator(config);
  }

  /** Review after a single service's new peak arrived. */
  public List<GuaranteeChange> onNewPeak(
      Map<String, Double> peaks, String service, double newPeakGpus, Instant at) {
    Map<String, Double> next = new TreeMap<>(peaks);
    next.put(service, newPeakGpus);
    return review(peaks, next, at);
  }

  /**
   * Every guarantee change between two sets of peaks, in service-id order.
   *
   * @param oldPeaks historical peak GPUs by service before
   * @param newPeaks historical peak GPUs by service now (a missing service is retired)
   * @param at event time of the review
   */
  public List<GuaranteeChange> review(
      Map<String, Double> oldPeaks, Map<String, Double> newPeaks, Instant at) {
    TreeSet<String> services = new TreeSet<>(oldPeaks.keySet());
    services.addAll(newPeaks.keySet());
    List<GuaranteeChange> out = new ArrayList<>();
    for (String s : services) {
      Double oldPeak = oldPeaks.get(s);
      Double newPeak = newPeaks.get(s);
      double oldG = oldPeak == null ? 0 : segments.onlineGuarantee(oldPeak);
      double newG = newPeak == null ? 0 : segments.onlineGuarantee(newPeak);
      if (Math.abs(newG - oldG) <= Gpus.EPS) {
        continue;
      }
      String reason;
      if (oldPeak == null) {
        reason = "new service: peak " + Gpus.fmt(newPeak) + " → guarantee " + Gpus.fmt(newG);
      } else if (newPeak == null) {
        reason = "service retired: guarantee " + Gpus.fmt(oldG) + " released";
      } else {
        reason = "peak " + (newPeak > oldPeak ? "rose " : "fell ") + Gpus.fmt(oldPeak) + " → "
            + Gpus.fmt(newPeak) + ": guarantee " + Gpus.fmt(oldG) + " → " + Gpus.fmt(newG);
      }
      out.add(new GuaranteeChange(s, oldG, newG, oldPeak == null ? Double.NaN : oldPeak,
          newPeak == null ? Double.NaN : newPeak, reason, at));
    }
    return out;
  }
}
