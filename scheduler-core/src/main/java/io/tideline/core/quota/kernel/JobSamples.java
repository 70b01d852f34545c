package io.tideline.core.quota.kernel;

import io.tideline.core.quota.UtilisationSample;
import java.time.Instant;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * A running job's recent GPU utilisation (table {@value QuotaKernelState#SAMPLES}, id = job id),
 * Q7: one point per (instant, GPU), the latest sample of a GPU at an instant replacing an earlier
 * one (duplicates are harmless), kept for the idle window plus the largest tolerated gap.
 *
 * <p>A value: immutable, equal by job id and {@link #points()} (what the store persists, unchanged
 * by the representation below), so the state, its store record and its restore are as before.
 *
 * <h2>Representation (derived, never persisted)</h2>
 * The points live in a {@code Window}: an append-only array of points plus, per instant (a
 * <em>group</em> of points), the index of its first point and its {@link #perInstant()} value. A
 * {@code JobSamples} is a view {@code [pointFrom, pointTo)} / {@code [groupFrom, groupTo)} of a
 * window; the slots of a view never change, so every view is immutable. The rules:
 * <ol>
 *   <li><b>Append in place.</b> {@link #plus} of a point ordered after every point of the view
 *       (the usual case: samples come in time order, and within an instant in GPU-id order) writes
 *       it into the shared window if no other view has written past this view's end (the window's
 *       {@code fill} equals {@code pointTo}) and there is room; otherwise the view's points are
 *       copied into a new window twice their size. Either way the cost is amortised O(1).</li>
 *   <li><b>Any other point</b> (a replacement, an older instant, a GPU id ordered before the
 *       latest's at the latest instant) takes the general path: the points are copied, the point
 *       inserted or replacing by binary search, and a new window built, O(points).</li>
 *   <li><b>{@link #from} only moves the view's start</b>: points are ordered by instant, so the
 *       points before an instant are whole groups at the front (binary search over groups).</li>
 *   <li><b>Per-instant values.</b> A group's value is the mean of its points' utilisation, summed
 *       in GPU-id order, exactly as {@link #perInstant()} always computed it. It is stored when
 *       the group is <em>closed</em> (a point of a later instant is appended after it), and never
 *       changes after; the view's last group may still grow, so its value is computed from its
 *       points when read. Hence {@link #perInstant()} costs O(instants), not O(points).</li>
 * </ol>
 * A window is written only under its own lock, and only at slots no existing view reads.
 *
 * <p>The points are ordered by instant then GPU id.
 */
public final class JobSamples {

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

  private static final int MIN_CAPACITY = 16;

  private final String jobId;
  private final Window w;
  private final int pointFrom;
  private final int pointTo;
  private final int groupFrom;
  private final int groupTo;

  /**
   * Samples of {@code jobId}: {@code points} in any order (they are sorted by instant, then GPU
   * id; duplicates are kept).
   */
  public JobSamples(String jobId, List<Point> points) {
    this.jobId = Objects.requireNonNull(jobId, "jobId");
    List<Point> sorted = points;
    if (!isSorted(points)) {
      sorted = new ArrayList<>(points);
      sorted.sort(ORDER);
    }
    this.w = Window.of(sorted, 0);
    this.pointFrom = 0;
    this.pointTo = w.fill;
    this.groupFrom = 0;
    this.groupTo = w.groups;
  }

  private JobSamples(String jobId, Window w, int pointFrom, int pointTo, int groupFrom,
      int groupTo) {
    this.jobId = jobId;
    this.w = w;
    this.pointFrom = pointFrom;
    this.pointTo = pointTo;
    this.groupFrom = groupFrom;
    this.groupTo = groupTo;
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

  /** The job. */
  public String jobId() {
    return jobId;
  }

  /** The samples, ordered by instant then GPU id (an immutable view, no copy). */
  public List<Point> points() {
    return new Slice<>(w.points, pointFrom, pointTo);
  }

  /** These samples with {@code p} (replacing the same GPU's sample at the same instant). */
  JobSamples plus(Point p) {
    Objects.requireNonNull(p, "p");
    if (pointTo == pointFrom || ORDER.compare(w.points[pointTo - 1], p) < 0) {
      boolean newGroup = pointTo == pointFrom || w.points[pointTo - 1].at().isBefore(p.at());
      if (w.appendAt(pointFrom, pointTo, groupTo, newGroup, p)) {
        return new JobSamples(jobId, w, pointFrom, pointTo + 1, groupFrom,
            newGroup ? groupTo + 1 : groupTo);
      }
      // shared or full: this view's points and p, in a new window with room to grow
      List<Point> next = new ArrayList<>(pointTo - pointFrom + 1);
      next.addAll(points());
      next.add(p);
      Window grown = Window.of(next, next.size());
      return new JobSamples(jobId, grown, 0, grown.fill, 0, grown.groups);
    }
    List<Point> next = new ArrayList<>(points());
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
    if (pointTo == pointFrom || !w.points[pointFrom].at().isBefore(from)) {
      return this;
    }
    // the first group at or after `from` (groups are in instant order)
    int lo = groupFrom;
    int hi = groupTo;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (w.points[w.groupStart[mid]].at().isBefore(from)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == groupTo) {
      return empty(jobId);
    }
    return new JobSamples(jobId, w, w.groupStart[lo], pointTo, lo, groupTo);
  }

  /** Per instant, the job's utilisation: the mean over the GPUs sampled then, in time order. */
  List<UtilisationSample> perInstant() {
    int n = groupTo - groupFrom;
    if (n == 0) {
      return List.of();
    }
    UtilisationSample[] out = new UtilisationSample[n];
    System.arraycopy(w.means, groupFrom, out, 0, n - 1);
    out[n - 1] = mean(w.points, w.groupStart[groupTo - 1], pointTo);
    return new Slice<>(out, 0, n);
  }

  /** The mean of points {@code [from, to)} (one instant), summed in order. */
  private static UtilisationSample mean(Point[] points, int from, int to) {
    double sum = 0;
    int n = 0;
    for (int i = from; i < to; i++) {
      sum += points[i].utilisation();
      n++;
    }
    return new UtilisationSample(points[from].at(), sum / n);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof JobSamples s) || !jobId.equals(s.jobId)
        || pointTo - pointFrom != s.pointTo - s.pointFrom) {
      return false;
    }
    if (w == s.w && pointFrom == s.pointFrom) {
      return true; // the same slots
    }
    for (int i = pointFrom, j = s.pointFrom; i < pointTo; i++, j++) {
      if (!w.points[i].equals(s.w.points[j])) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    return 31 * jobId.hashCode() + points().hashCode();
  }

  @Override
  public String toString() {
    return "JobSamples[jobId=" + jobId + ", points=" + points() + "]";
  }

  /** An immutable list over slots of an array that never change. */
  private static final class Slice<T> extends AbstractList<T> implements RandomAccess {
    private final T[] a;
    private final int from;
    private final int to;

    Slice(T[] a, int from, int to) {
      this.a = a;
      this.from = from;
      this.to = to;
    }

    @Override
    public T get(int i) {
      Objects.checkIndex(i, to - from);
      return a[from + i];
    }

    @Override
    public int size() {
      return to - from;
    }
  }

  /**
   * The shared, append-only storage of views (see the class documentation). Slots below
   * {@link #fill} / {@link #groups} are written once; {@code means[g]} is written when group
   * {@code g} is closed, by the append that starts group {@code g + 1}.
   */
  private static final class Window {
    final Point[] points;
    /** Per group: index of its first point. */
    final int[] groupStart;
    /** Per closed group: its per-instant value. */
    final UtilisationSample[] means;
    int fill;
    int groups;

    private Window(int capacity) {
      this.points = new Point[capacity];
      this.groupStart = new int[capacity];
      this.means = new UtilisationSample[capacity];
    }

    /** A window of {@code sorted}, with room for {@code room} more points. */
    static Window of(List<Point> sorted, int room) {
      int n = sorted.size();
      Window w = new Window(Math.max(MIN_CAPACITY, n + room));
      for (int i = 0; i < n; i++) {
        Point p = sorted.get(i);
        w.points[i] = p;
        if (i == 0 || !sorted.get(i - 1).at().equals(p.at())) {
          if (w.groups > 0) {
            w.means[w.groups - 1] = mean(w.points, w.groupStart[w.groups - 1], i);
          }
          w.groupStart[w.groups++] = i;
        }
      }
      w.fill = n;
      return w;
    }

    /**
     * Writes {@code p} at slot {@code pointTo} for the view ending there, if no view has written
     * past it and there is room; {@code newGroup}: {@code p} starts a group, closing the view's
     * last one.
     */
    synchronized boolean appendAt(int pointFrom, int pointTo, int groupTo, boolean newGroup,
        Point p) {
      if (fill != pointTo || pointTo == points.length || pointTo == pointFrom) {
        return false;
      }
      if (newGroup) {
        if (groups != groupTo || groupTo == groupStart.length) {
          return false;
        }
        means[groupTo - 1] = mean(points, groupStart[groupTo - 1], pointTo);
        groupStart[groupTo] = pointTo;
        groups = groupTo + 1;
      }
      points[pointTo] = p;
      fill = pointTo + 1;
      return true;
    }
  }
}
