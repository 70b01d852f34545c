package io.tideline.core.quota.kernel;

import io.tideline.core.quota.UtilisationSample;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * A running job's recent GPU utilisation (table {@value QuotaKernelState#SAMPLES}, id = job id),
 * Q7: one point per (instant, GPU), the latest sample of a GPU at an instant replacing an earlier
 * one (duplicates are harmless), kept for the idle window plus the largest tolerated gap.
 *
 * @param jobId the job
 * @param points the samples, ordered by instant then GPU id
 */
public record JobSamples(String jobId, List<Point> points) {

  /**
   * One GPU's utilisation at one instant.
   *
   * @param at when it was sampled
   * @param gpuId the GPU
   * @param utilisation busy fraction in [0, 1]
   */
  public record Point(Instant at, String gpuId, double utilisation) {}

  /** By instant, then GPU id (written out: it runs for every sample received). */
  private static final Comparator<Point> ORDER = (a, b) -> {
    int c = a.at().compareTo(b.at());
    return c != 0 ? c : a.gpuId().compareTo(b.gpuId());
  };

  public JobSamples {
    Objects.requireNonNull(jobId, "jobId");
    if (!isSorted(points)) {
      List<Point> sorted = new ArrayList<>(points);
      sorted.sort(ORDER);
      points = sorted;
    }
    // one copy (none when already immutable); plus() hands in a sorted list, so no sort either
    points = List.copyOf(points);
  }

  private static boolean isSorted(List<Point> points) {
    for (int i = 1; i < points.size(); i++) {
      if (ORDER.compare(points.get(i - 1), points.get(i)) > 0) {
        return false;
      }
    }
    return true;
  }

  public static JobSamples empty(String jobId) {
    return new JobSamples(jobId, List.of());
  }

  /** These samples with {@code p} (replacing the same GPU's sample at the same instant). */
  JobSamples plus(Point p) {
    List<Point> next = new ArrayList<>(points);
    int i = Collections.binarySearch(next, p, ORDER);
    if (i >= 0) {
      next.set(i, p);
    } else {
      next.add(-i - 1, p);
    }
    return new JobSamples(jobId, next);
  }

  /** These samples without those before {@code from}. */
  JobSamples from(Instant from) {
    if (points.isEmpty() || !points.get(0).at().isBefore(from)) {
      return this;
    }
    return new JobSamples(jobId, points.stream().filter(p -> !p.at().isBefore(from)).toList());
  }

  /** Per instant, the job's utilisation: the mean over the GPUs sampled then, in time order. */
  List<UtilisationSample> perInstant() {
    List<UtilisationSample> out = new ArrayList<>();
    int i = 0;
    while (i < points.size()) {
      Instant at = points.get(i).at();
      double sum = 0;
      int n = 0;
      while (i < points.size() && points.get(i).at().equals(at)) {
        sum += points.get(i).utilisation();
        n++;
        i++;
      }
      out.add(new UtilisationSample(at, sum / n));
    }
    return out;
  }
}
