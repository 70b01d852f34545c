package io.tideline.core.placement;

import static io.tideline.core.pbt.PropertyFailures.assertCatches;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;

import io.tideline.core.cluster.TestJobs;
import io.tideline.core.model.WorkloadClass;
import io.tideline.core.pbt.Gens;
import io.tideline.core.pbt.Seed;
import io.tideline.core.pbt.SeededProperty;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * The queue order: its scenario, and that it is a total order (antisymmetric, transitive, equal
 * only for identical standings) over jobs drawn from small domains so that ties are frequent.
 * Each order property is also run on a deliberately broken comparator, which it must catch.
 */
class QueueOrderTest {

  static final Instant T0 = Instant.parse("2026-11-02T14:00:00Z");

  static QueuedJob queued(String id, WorkloadClass c, int rank, double usage, int boost,
      Instant submitted) {
    return new QueuedJob(TestJobs.training(id, 8).workloadClass(c).submittedAt(submitted).build(),
        new QuotaRank(rank, "r" + rank), new FairShare(usage), new CompensationBoost(boost));
  }

  @Test
  void shouldOrderByClassThenQuotaThenFairShareThenBoostThenTimeThenId() {
    List<QueuedJob> jobs = new ArrayList<>(List.of(
        queued("h-late-id", WorkloadClass.TRAINING, 0, 0.5, 0, T0.plusSeconds(60)),
        queued("g-tie-b", WorkloadClass.TRAINING, 0, 0.5, 0, T0),
        queued("f-tie-a", WorkloadClass.TRAINING, 0, 0.5, 0, T0),
        queued("e-boosted", WorkloadClass.TRAINING, 0, 0.5, 2, T0.plusSeconds(3600)),
        queued("d-low-usage", WorkloadClass.TRAINING, 0, 0.49, 0, T0.plusSeconds(7200)),
        queued("c-over-cap", WorkloadClass.TRAINING, 2, 0.0, 9, T0),
        queued("b-explore", WorkloadClass.EXPLORATORY_TRAINING, 0, 0.0, 9, T0),
        queued("a-online", WorkloadClass.ONLINE_INFERENCE, 2, 9.0, 0, T0.plusSeconds(9999))));

    jobs.sort(QueueOrder.INSTANCE);

    assertThat(jobs).extracting(q -> q.job().jobId()).containsExactly(
        "a-online", "d-low-usage", "e-boosted", "f-tie-a", "g-tie-b", "h-late-id", "c-over-cap",
        "b-explore");
  }

  @Test
  void shouldTreatNegativeZeroUsageAsZero() {
    QueuedJob a = queued("x", WorkloadClass.TRAINING, 0, -0.0, 0, T0);
    QueuedJob b = queued("x", WorkloadClass.TRAINING, 0, 0.0, 0, T0);

    assertThat(QueueOrder.INSTANCE.compare(a, b)).isZero();
  }

  /** A queued job's standing: every key of the order, each from a small domain. */
  record Standing(String id, WorkloadClass workloadClass, int rank, double usage, int boost,
      int submittedOffset) {
    QueuedJob job() {
      return queued(id, workloadClass, rank, usage, boost, T0.plusSeconds(submittedOffset));
    }
  }

  /** Two standings; {@link #pairs()} makes many of them differ in one key only. */
  record Pair(Standing a, Standing b) {}

  static final Gen<String> IDS = Gens.oneOf("a", "b", "c");
  static final Gen<WorkloadClass> CLASSES = Gens.oneOf(WorkloadClass.values());
  static final Gen<Integer> SMALL = Gens.ints(0, 2);
  static final Gen<Double> USAGES = Gens.oneOf(0.0, 0.25, 0.5);

  /**
   * Standings from small domains (3 ids, every class, rank / boost / submission offset 0–2, usage
   * 0, 0.25 or 0.5) so that ties on every key are frequent.
   */
  static Gen<Standing> standings() {
    return in -> new Standing(IDS.generate(in), CLASSES.generate(in), SMALL.generate(in),
        USAGES.generate(in), SMALL.generate(in), SMALL.generate(in));
  }

  /**
   * Pairs: half drawn independently, half a standing and a neighbour of it that redraws one key
   * (or none). Independent pairs tie on all six keys but one in about 1 draw of 400, too rarely
   * to catch a missing tie-break in 1000 tries; neighbours do it in every other draw.
   */
  static Gen<Pair> pairs() {
    Gen<Standing> standings = standings();
    Gen<Integer> keys = integers().between(0, 6);
    Gen<Pair> independent = in -> new Pair(standings.generate(in), standings.generate(in));
    Gen<Pair> neighbours = in -> {
      Standing a = standings.generate(in);
      Standing b = switch (keys.generate(in)) {
        case 0 -> new Standing(IDS.generate(in), a.workloadClass(), a.rank(), a.usage(), a.boost(),
            a.submittedOffset());
        case 1 -> new Standing(a.id(), CLASSES.generate(in), a.rank(), a.usage(), a.boost(),
            a.submittedOffset());
        case 2 -> new Standing(a.id(), a.workloadClass(), SMALL.generate(in), a.usage(), a.boost(),
            a.submittedOffset());
        case 3 -> new Standing(a.id(), a.workloadClass(), a.rank(), USAGES.generate(in), a.boost(),
            a.submittedOffset());
        case 4 -> new Standing(a.id(), a.workloadClass(), a.rank(), a.usage(), SMALL.generate(in),
            a.submittedOffset());
        case 5 -> new Standing(a.id(), a.workloadClass(), a.rank(), a.usage(), a.boost(),
            SMALL.generate(in));
        default -> a;
      };
      return new Pair(a, b);
    };
    return Generate.oneOf(independent, neighbours);
  }

  /** As many tries as jqwik's default, per seed. */
  static final int TRIES = 1000;

  @SeededProperty
  void orderIsAntisymmetric(Seed seed) {
    isAntisymmetric(seed, QueueOrder.INSTANCE);
  }

  void isAntisymmetric(Seed seed, Comparator<QueuedJob> o) {
    seed.qt(TRIES).forAll(pairs()).checkAssert(p -> {
      QueuedJob a = p.a().job();
      QueuedJob b = p.b().job();
      assertThat(Integer.signum(o.compare(a, b))).as("antisymmetric")
          .isEqualTo(-Integer.signum(o.compare(b, a)));
    });
  }

  @Test
  void shouldCatchAnOrderThatPutsEveryTieFirst() {
    // broken: a tie is "less than" whichever side is asked first
    Comparator<QueuedJob> tieFirst = (a, b) -> {
      int c = QueueOrder.INSTANCE.compare(a, b);
      return c == 0 ? -1 : c;
    };

    assertCatches(seed -> isAntisymmetric(seed, tieFirst), "antisymmetric");
  }

  @SeededProperty
  void orderIsTransitive(Seed seed) {
    isTransitive(seed, QueueOrder.INSTANCE);
  }

  void isTransitive(Seed seed, Comparator<QueuedJob> o) {
    seed.qt(TRIES).forAll(standings(), standings(), standings()).checkAssert((x, y, z) -> {
      QueuedJob a = x.job();
      QueuedJob b = y.job();
      QueuedJob c = z.job();
      if (o.compare(a, b) <= 0 && o.compare(b, c) <= 0) {
        assertThat(o.compare(a, c)).as("transitive").isLessThanOrEqualTo(0);
      }
    });
  }

  @Test
  void shouldCatchAnOrderWhoseClassesGoRoundInACircle() {
    // broken: classes compared by ordinal difference modulo 3, a rock-paper-scissors order
    Comparator<QueuedJob> circular = (a, b) -> {
      int d = Math.floorMod(a.job().workloadClass().ordinal() - b.job().workloadClass().ordinal(),
          3);
      return d == 0 ? 0 : d == 1 ? 1 : -1;
    };

    assertCatches(seed -> isTransitive(seed, circular), "transitive");
  }

  @SeededProperty
  void onlyIdenticalStandingsCompareEqual(Seed seed) {
    onlyIdenticalStandingsTie(seed, QueueOrder.INSTANCE);
  }

  void onlyIdenticalStandingsTie(Seed seed, Comparator<QueuedJob> o) {
    seed.qt(TRIES).forAll(pairs()).checkAssert(p -> {
      QueuedJob a = p.a().job();
      QueuedJob b = p.b().job();
      boolean sameKeys = a.job().workloadClass() == b.job().workloadClass()
          && a.quota().rank() == b.quota().rank()
          && a.fairShare().equals(b.fairShare())
          && a.boost().equals(b.boost())
          && a.job().submittedAt().equals(b.job().submittedAt())
          && a.job().jobId().equals(b.job().jobId());
      assertThat(o.compare(a, b) == 0).as("equal only with identical standings")
          .isEqualTo(sameKeys);
    });
  }

  @Test
  void shouldCatchAnOrderWithoutTheJobIdTieBreak() {
    // broken: the last tie-break (the job id) is missing: b is compared as if it had a's id
    Comparator<QueuedJob> noIdTieBreak = (a, b) -> {
      QueuedJob sameId = new QueuedJob(TestJobs.training(a.job().jobId(), 8)
          .workloadClass(b.job().workloadClass()).submittedAt(b.job().submittedAt()).build(),
          b.quota(), b.fairShare(), b.boost());
      return QueueOrder.INSTANCE.compare(a, sameId);
    };

    assertCatches(seed -> onlyIdenticalStandingsTie(seed, noIdTieBreak),
        "equal only with identical standings");
  }
}
