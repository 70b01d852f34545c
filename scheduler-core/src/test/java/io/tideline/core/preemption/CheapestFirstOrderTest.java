package io.tideline.core.preemption;

import static io.tideline.core.pbt.PropertyFailures.assertCatches;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.pbt.Gens;
import io.tideline.core.pbt.Seed;
import io.tideline.core.pbt.SeededProperty;
import io.tideline.core.preemption.PreemptionPlanner.Candidate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * The planner's lazy cheapest-first order ({@link PreemptionPlanner#cheapestFirst}) is exactly
 * the full sort by {@link PreemptionPlanner#CHEAPEST_FIRST}, whatever positions are read in
 * whatever order — over lists long enough for several blocks, with costs that tie exactly, tie
 * only after float rounding, and scores and ids that decide the ties.
 */
class CheapestFirstOrderTest {

  /** Costs chosen to tie: equal, equal as floats but not as doubles, and distinct. */
  private static final double[] COSTS = {0.0, 0.25, 0.25 + 1e-12, 1.0, 1.0 + 1e-10, 3.0};

  record Case(long seed, int size) {
    List<Candidate> candidates() {
      Random r = new Random(seed);
      List<Candidate> out = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        double cost = r.nextInt(3) == 0 ? r.nextDouble() * 5 : COSTS[r.nextInt(COSTS.length)];
        double score = r.nextBoolean() ? 1.0 : r.nextInt(4);
        String id = "job-" + Integer.toString(r.nextInt(1 << 20), 36) + "-" + i;
        out.add(new Candidate(i, Jobs.training(id).build(), score, 1, cost));
      }
      return out;
    }

    /** Positions to read first: a gallop like the search's, then random ones. */
    List<Integer> reads() {
      Random r = new Random(~seed);
      List<Integer> out = new ArrayList<>();
      for (int k = 1; k <= size; k *= 2) {
        out.add(k - 1);
      }
      for (int k = 0; k < 20 && size > 0; k++) {
        out.add(r.nextInt(size));
      }
      return out;
    }
  }

  static Gen<Case> cases() {
    Gen<Long> seeds = Gens.anyLong();
    Gen<Integer> sizes = Gens.ints(0, 700);
    return in -> new Case(seeds.generate(in), sizes.generate(in));
  }

  @SeededProperty
  void shouldReadAsTheFullSortWhateverIsReadFirst(Seed seed) {
    readsAsTheFullSort(seed, PreemptionPlanner::cheapestFirst);
  }

  void readsAsTheFullSort(Seed seed, Function<List<Candidate>, List<Candidate>> order) {
    seed.qt(200).forAll(cases()).checkAssert(c -> {
      List<Candidate> candidates = c.candidates();
      List<Candidate> expected = new ArrayList<>(candidates);
      expected.sort(PreemptionPlanner.CHEAPEST_FIRST);
      List<Candidate> lazy = order.apply(candidates);
      for (int i : c.reads()) {
        assertThat(lazy.get(i)).as("position %d read early = the full sort's", i)
            .isSameAs(expected.get(i));
      }
      assertThat(lazy).as("every position = the full sort's").containsExactlyElementsOf(expected);
    });
  }

  @Test
  void shouldCatchAnOrderThatBreaksTiesByInputPosition() {
    // broken: cost only, ties left in input order (a tie run split across blocks does this)
    assertCatches(seed -> readsAsTheFullSort(seed, list -> {
      List<Candidate> out = new ArrayList<>(list);
      out.sort(Comparator.comparingDouble(Candidate::costGpuHours));
      return out;
    }), "the full sort");
  }
}
