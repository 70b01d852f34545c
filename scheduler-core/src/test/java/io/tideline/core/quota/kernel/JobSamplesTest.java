package io.tideline.core.quota.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.quota.UtilisationSample;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link JobSamples}' shared append-only window and stored per-instant values are a faster
 * representation of the same value: whatever the order of samples, replacements, trims and
 * branches (two different samples added to one version), every version's points and per-instant
 * utilisation equal those of the plain sorted list recomputed from scratch — the representation
 * the kernel had before — bit for bit, and no version changes once made.
 */
class JobSamplesTest {

  private static final Instant T0 = Instant.parse("2026-11-02T00:00:00Z");

  /** The previous representation: a sorted list, copied on every change, recomputed on read. */
  record Plain(List<JobSamples.Point> points) {

    static final Comparator<JobSamples.Point> ORDER = Comparator
        .comparing(JobSamples.Point::at).thenComparing(JobSamples.Point::gpuId);

    Plain plus(JobSamples.Point p) {
      List<JobSamples.Point> next = new ArrayList<>(points);
      int i = Collections.binarySearch(next, p, ORDER);
      if (i >= 0) {
        next.set(i, p);
      } else {
        next.add(-i - 1, p);
      }
      return new Plain(List.copyOf(next));
    }

    Plain from(Instant from) {
      return new Plain(points.stream().filter(p -> !p.at().isBefore(from)).toList());
    }

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

  /** One version and what it must stay equal to. */
  record Version(JobSamples samples, Plain plain) {}

  @Test
  void shouldEqualThePlainRecomputationForRandomSampleStreams() {
    for (long seed = 1; seed <= 40; seed++) {
      Random rnd = new Random(seed);
      List<Version> versions = new ArrayList<>();
      Version v = new Version(JobSamples.empty("j"), new Plain(List.of()));
      versions.add(v);
      int minute = 0;
      for (int step = 0; step < 600; step++) {
        int r = rnd.nextInt(100);
        if (r < 5 && versions.size() > 1) {
          // branch: go on from an older version (its window is shared with later ones)
          v = versions.get(rnd.nextInt(versions.size()));
        } else if (r < 12) {
          Instant cut = T0.plus(Duration.ofMinutes(Math.max(0, minute - rnd.nextInt(30))));
          v = new Version(v.samples().from(cut), v.plain().from(cut));
        } else {
          if (rnd.nextInt(10) < 3) {
            minute++; // mostly several GPUs per instant, in time order
          }
          int at = r < 20 ? Math.max(0, minute - rnd.nextInt(10)) : minute; // some late ones
          JobSamples.Point p = new JobSamples.Point(T0.plus(Duration.ofMinutes(at)),
              "n" + rnd.nextInt(3) + "/" + rnd.nextInt(8), rnd.nextInt(1000) / 997.0);
          v = new Version(v.samples().plus(p), v.plain().plus(p));
        }
        versions.add(v);
        assertSame(v, "seed " + seed + " step " + step);
      }
      for (Version old : versions) {
        assertSame(old, "seed " + seed + " afterwards"); // no version changed once made
      }
    }
  }

  @Test
  void shouldKeepEachVersionWhenTwoSamplesExtendTheSameOne() {
    JobSamples base = JobSamples.empty("j")
        .plus(point(0, "g0", 0.25)).plus(point(0, "g1", 0.5)).plus(point(1, "g0", 0.1));
    JobSamples a = base.plus(point(1, "g1", 0.3)).plus(point(2, "g0", 0.9));
    JobSamples b = base.plus(point(2, "g0", 0.7));

    assertThat(base.perInstant()).containsExactly(new UtilisationSample(at(0), 0.375),
        new UtilisationSample(at(1), 0.1));
    assertThat(a.perInstant()).containsExactly(new UtilisationSample(at(0), 0.375),
        new UtilisationSample(at(1), (0.1 + 0.3) / 2), new UtilisationSample(at(2), 0.9));
    assertThat(b.perInstant()).containsExactly(new UtilisationSample(at(0), 0.375),
        new UtilisationSample(at(1), 0.1), new UtilisationSample(at(2), 0.7));
    assertThat(base.points()).hasSize(3);
  }

  @Test
  void shouldRestoreFromStoredPointsToAnEqualValue() {
    JobSamples running = JobSamples.empty("j");
    List<JobSamples.Point> stored = new ArrayList<>();
    for (int m = 0; m < 70; m++) {
      for (int g = 0; g < 4; g++) {
        JobSamples.Point p = point(m, "g" + g, (m * 7 + g) % 10 / 10.0);
        running = running.plus(p).from(at(m - 65));
        stored.add(p);
      }
    }
    List<JobSamples.Point> kept = new ArrayList<>(stored.subList(stored.size() - 66 * 4,
        stored.size()));
    Collections.reverse(kept); // a store may hand them back in any order

    JobSamples restored = new JobSamples("j", kept);

    assertThat(restored).isEqualTo(running).hasSameHashCodeAs(running);
    assertThat(restored.points()).isEqualTo(running.points());
    assertThat(restored.perInstant()).isEqualTo(running.perInstant());
  }

  private static void assertSame(Version v, String where) {
    assertThat(v.samples().points()).as(where).isEqualTo(v.plain().points());
    assertThat(v.samples().perInstant()).as(where).isEqualTo(v.plain().perInstant());
    JobSamples copy = new JobSamples("j", v.plain().points());
    assertThat(v.samples()).as(where).isEqualTo(copy).hasSameHashCodeAs(copy);
  }

  private static Instant at(int minute) {
    return T0.plus(Duration.ofMinutes(minute));
  }

  private static JobSamples.Point point(int minute, String gpu, double utilisation) {
    return new JobSamples.Point(at(minute), gpu, utilisation);
  }
}
