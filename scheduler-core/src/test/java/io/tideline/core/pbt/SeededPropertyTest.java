package io.tideline.core.pbt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.quicktheories.generators.SourceDSL.integers;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * The property harness itself (ADR 0009): every property runs once per fixed seed and once for
 * the random seed of the run, {@code -Dtideline.pbt.seed} replaces that set, the same seed gives
 * the same inputs, and a failure names its seed with the commands to reproduce and keep it.
 */
class SeededPropertyTest {

  /** Properties run through JUnit's engine test kit only (no "Test" suffix: Surefire skips it). */
  static class Fixture {
    static final List<Seed> SEEN = new ArrayList<>();

    @SeededProperty
    void holds(Seed seed) {
      SEEN.add(seed);
      seed.qt(20).forAll(integers().between(0, 9)).checkAssert(i -> assertThat(i).isBetween(0, 9));
    }

    @SeededProperty
    void neverHolds(Seed seed) {
      seed.qt(20).forAll(integers().between(0, 9))
          .checkAssert(i -> assertThat(i).as("deliberately false").isNegative());
    }
  }

  @Test
  void shouldRunEveryPropertyForEachFixedSeedAndOneRandomSeed() {
    Fixture.SEEN.clear();
    List<Event> failures = new ArrayList<>();
    withSeedProperty(null, () -> {
      EngineExecutionResults results = run();
      results.testEvents().assertStatistics(s -> s.started(2 * (Seeds.FIXED.size() + 1))
          .succeeded(Seeds.FIXED.size() + 1).failed(Seeds.FIXED.size() + 1));
      failures.addAll(results.testEvents().failed().list());
      return null;
    });

    List<Long> fixed = Fixture.SEEN.stream().filter(s -> s.origin() == Seed.Origin.FIXED)
        .map(Seed::value).toList();
    assertThat(fixed).isEqualTo(Seeds.FIXED);
    assertThat(Fixture.SEEN).filteredOn(s -> s.origin() == Seed.Origin.RANDOM).singleElement()
        .satisfies(s -> assertThat(s.value()).isEqualTo(Seeds.random()));
    assertThat(failures).extracting(e -> e.getTestDescriptor().getDisplayName())
        .contains("seed 20261102 (fixed)", "seed " + Seeds.random() + " (random)");
  }

  @Test
  void shouldNameTheSeedAndHowToReproduceAndKeepAFailure() {
    List<Event> failures = withSeedProperty(null, () -> run().testEvents().failed().list());

    Throwable first = failures.get(0).getPayload(TestExecutionResult.class).orElseThrow()
        .getThrowable().orElseThrow();
    assertThat(first).isInstanceOf(AssertionError.class).hasMessageContainingAll(
        "Property Fixture.neverHolds failed for seed 20261102 (fixed).",
        "./mvnw -B -ntp -pl scheduler-core test -Dtest='Fixture#neverHolds' "
            + "-Dtideline.pbt.seed=20261102",
        "@Test void shouldHoldForSeed_20261102() { neverHolds(Seed.of(20261102L)); }",
        "Property falsified", "deliberately false", "Seed was 20261102");
  }

  @Test
  void shouldRunOnlyTheGivenSeedsWhenOneIsGiven() {
    Fixture.SEEN.clear();
    withSeedProperty("42, -7", () -> run().testEvents()
        .assertStatistics(s -> s.started(4).succeeded(2).failed(2)));

    assertThat(Fixture.SEEN).containsExactly(new Seed(42, Seed.Origin.GIVEN),
        new Seed(-7, Seed.Origin.GIVEN));
  }

  @Test
  void shouldNameANegativeSeedsRegressionTestWithAnM() {
    String report = SeededPropertyExtension.report(new Seed(-12, Seed.Origin.RANDOM), "SomeTest",
        "someProperty", new AssertionError("Seed was -12"));

    assertThat(report).contains("-Dtideline.pbt.seed=-12",
        "@Test void shouldHoldForSeed_m12() { someProperty(Seed.of(-12L)); }");
  }

  @Test
  void shouldRejectASeedThatIsNotALong() {
    assertThatThrownBy(() -> Seeds.forRun("12,x", () -> 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-Dtideline.pbt.seed takes seeds");
  }

  @Test
  void shouldDrawTheSameInputsForTheSameSeedAndOthersForAnother() {
    assertThat(draws(Seed.of(20261102))).isEqualTo(draws(Seed.of(20261102)))
        .isNotEqualTo(draws(Seed.of(20261103)));
  }

  @Test
  void shouldMixEdgeCasesIntoEveryRange() {
    List<Integer> seen = new ArrayList<>();
    Seed.of(1).qt(400).forAll(Gens.ints(-1_000_000, 1_000_000)).checkAssert(seen::add);

    assertThat(seen).contains(-1_000_000, -999_999, 0, 1, 999_999, 1_000_000);
  }

  private static List<Integer> draws(Seed seed) {
    List<Integer> seen = new ArrayList<>();
    seed.qt(50).forAll(Gens.lists(Gens.ints(0, 1000), 0, 5)).checkAssert(l -> seen.addAll(l));
    return seen;
  }

  private static EngineExecutionResults run() {
    return EngineTestKit.engine("junit-jupiter").selectors(selectClass(Fixture.class)).execute();
  }

  /** Runs {@code body} with {@code -Dtideline.pbt.seed} set to {@code value} (null: unset). */
  private static <T> T withSeedProperty(String value, Supplier<T> body) {
    String before = System.getProperty(Seeds.SEED_PROPERTY);
    try {
      if (value == null) {
        System.clearProperty(Seeds.SEED_PROPERTY);
      } else {
        System.setProperty(Seeds.SEED_PROPERTY, value);
      }
      return body.get();
    } finally {
      if (before == null) {
        System.clearProperty(Seeds.SEED_PROPERTY);
      } else {
        System.setProperty(Seeds.SEED_PROPERTY, before);
      }
    }
  }
}
