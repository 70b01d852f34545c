package io.tideline.core.pbt;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.quicktheories.generators.SourceDSL;

/**
 * Generators with the edge cases jqwik used to mix in, made explicit. QuickTheories on its own
 * tries three boundary examples first (every draw at its shrink target, its minimum, then its
 * maximum) and then draws uniformly; these generators also put each parameter on one of its edge
 * values in {@link #EDGE_PERCENT}% of the draws, independently of the others, so edge values meet
 * ordinary ones as jqwik's "mixin" edge cases did.
 */
public final class Gens {

  /** How often a parameter is drawn from its edge values instead of its whole range. */
  public static final int EDGE_PERCENT = 10;

  private Gens() {}

  /** Integers in [min, max]; edges min, min + 1, 0 and 1 when inside, max − 1, max. */
  public static Gen<Integer> ints(int min, int max) {
    TreeSet<Integer> edges = new TreeSet<>();
    for (long e : new long[] {min, (long) min + 1, 0, 1, (long) max - 1, max}) {
      if (e >= min && e <= max) {
        edges.add((int) e);
      }
    }
    return withEdges(SourceDSL.integers().between(min, max), List.copyOf(edges));
  }

  /** Longs in [min, max]; edges as for {@link #ints}. */
  public static Gen<Long> longs(long min, long max) {
    TreeSet<Long> edges = new TreeSet<>();
    edges.add(min);
    edges.add(max);
    if (min < max) {
      edges.add(min + 1);
      edges.add(max - 1);
    }
    for (long e : new long[] {0, 1}) {
      if (e >= min && e <= max) {
        edges.add(e);
      }
    }
    return withEdges(SourceDSL.longs().between(min, max), List.copyOf(edges));
  }

  /** Any long; edges Long.MIN_VALUE, MIN + 1, −1, 0, 1, MAX − 1, MAX. */
  public static Gen<Long> anyLong() {
    return withEdges(SourceDSL.longs().all(), List.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L,
        1L, Long.MAX_VALUE - 1, Long.MAX_VALUE));
  }

  /**
   * Doubles in [min, max] on a grid of 0.01 (jqwik's default scale of two decimals, which also
   * makes equal values likely enough to matter); edges as for {@link #longs} on that grid.
   */
  public static Gen<Double> doubles2(double min, double max) {
    long lo = Math.round(min * 100);
    long hi = Math.round(max * 100);
    return longs(lo, hi).map(c -> c / 100.0);
  }

  /** One of the values, each as likely as its number of occurrences (no edge cases). */
  @SafeVarargs
  public static <T> Gen<T> oneOf(T... values) {
    return Generate.pick(List.of(values));
  }

  /**
   * Lists of {@code element} with a size in [minSize, maxSize] (edge sizes as for {@link #ints});
   * in {@link #EDGE_PERCENT}% of draws every element is the same one (a constant list).
   * Immutable {@link java.util.RandomAccess} lists.
   */
  public static <T> Gen<List<T>> lists(Gen<T> element, int minSize, int maxSize) {
    Gen<Integer> sizes = ints(minSize, maxSize);
    Gen<List<T>> varied = in -> {
      int n = sizes.generate(in);
      List<T> list = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        list.add(element.generate(in));
      }
      return Collections.unmodifiableList(list);
    };
    Gen<List<T>> constant = in -> {
      int n = sizes.generate(in);
      return n == 0 ? List.of() : Collections.nCopies(n, element.generate(in));
    };
    return Generate.frequency(Pair.of(100 - EDGE_PERCENT, varied), Pair.of(EDGE_PERCENT, constant));
  }

  /** {@code gen}, or one of {@code edges} in {@link #EDGE_PERCENT}% of the draws. */
  public static <T> Gen<T> withEdges(Gen<T> gen, List<T> edges) {
    return Generate.frequency(Pair.of(100 - EDGE_PERCENT, gen),
        Pair.of(EDGE_PERCENT, Generate.pick(edges)));
  }
}
