package io.tideline.core.slots;

import static io.tideline.core.pbt.PropertyFailures.assertCatches;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tideline.core.pbt.Gens;
import io.tideline.core.pbt.Seed;
import io.tideline.core.pbt.SeededProperty;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class SlotClassifierTest {

  private static final SlotGrid GRID = new SlotGrid(Duration.ofMinutes(15), ZoneOffset.UTC);
  private final SlotClassifier classifier = new SlotClassifier(SlotClassifierConfig.DEFAULTS);

  /** The F4 example day: 00:00 deep trough, 06:00 morning peak, 10:00 flat, 18:00 evening peak. */
  private static double[] exampleDay() {
    return new ProfileBuilder(GRID, 40)
        .level("00:00", "05:00", 10)
        .level("05:00", "06:00", 40)
        .level("06:00", "09:00", 95)
        .level("09:00", "17:00", 60)
        .level("17:00", "21:00", 100)
        .level("21:00", "24:00", 40)
        .build();
  }

  @Test
  void shouldFindTheF4ExampleClasses() {
    SlotMap map = classifier.classify(GRID, exampleDay());

    assertThat(map.classAt(Instant.parse("2026-11-02T00:00:00Z"))).isEqualTo(SlotClass.DEEP_TROUGH);
    assertThat(map.classAt(Instant.parse("2026-11-02T06:00:00Z"))).isEqualTo(SlotClass.PEAK);
    assertThat(map.classAt(Instant.parse("2026-11-02T10:00:00Z"))).isEqualTo(SlotClass.FLAT);
    assertThat(map.classAt(Instant.parse("2026-11-02T18:00:00Z"))).isEqualTo(SlotClass.PEAK);
    assertThat(map.classAt(Instant.parse("2026-11-02T22:00:00Z"))).isEqualTo(SlotClass.TROUGH);
  }

  @Test
  void shouldOrderClassesByCentroid() {
    SlotMap map = classifier.classify(GRID, exampleDay());

    assertThat(map.centroids().keySet()).containsExactly(SlotClass.values());
    List<Double> centroids = new ArrayList<>(map.centroids().values());
    assertThat(centroids).isSorted().doesNotHaveDuplicates();
    assertThat(map.trace()).hasSize(4);
  }

  @Test
  void shouldGiveTheSameMapForTheSameProfileAndSeed() {
    double[] profile = exampleDay();

    SlotMap first = new SlotClassifier(SlotClassifierConfig.DEFAULTS).classify(GRID, profile);
    SlotMap second = new SlotClassifier(SlotClassifierConfig.DEFAULTS).classify(GRID, profile);

    assertThat(second).isEqualTo(first);
  }

  @Test
  void shouldCallEverySlotFlatWhenTheProfileHasFewerLevelsThanClasses() {
    double[] twoLevels = new ProfileBuilder(GRID, 0).build();
    for (int s = 0; s < twoLevels.length; s++) {
      twoLevels[s] = s < 48 ? 10 : 20;
    }

    SlotMap map = classifier.classify(GRID, twoLevels);

    assertThat(map.classes()).containsOnly(SlotClass.FLAT);
    assertThat(map.trace()).singleElement()
        .satisfies(t -> assertThat(t.detail()).contains("2 distinct usage levels < 4"));
  }

  @Test
  void shouldRejectAProfileThatDoesNotMatchTheGrid() {
    assertThatThrownBy(() -> classifier.classify(GRID, new double[95]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("95");
  }

  @Test
  void shouldRejectNegativeUsage() {
    double[] profile = exampleDay();
    profile[3] = -1;

    assertThatThrownBy(() -> classifier.classify(GRID, profile))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("slot 3");
  }

  @SeededProperty
  void classesAreMonotoneInUsage(Seed seed) {
    classesRiseWithUsage(seed, profile -> classifier.classify(GRID, profile));
  }

  /** @param classify the slot map of a profile: the real classifier or a broken fixture */
  void classesRiseWithUsage(Seed seed, Function<double[], SlotMap> classify) {
    seed.qt(30).forAll(Gens.lists(Gens.doubles2(0, 1000), 96, 96)).checkAssert(usage -> {
      double[] profile = usage.stream().mapToDouble(Double::doubleValue).toArray();

      SlotMap map = classify.apply(profile);

      // a slot with more usage never gets a lower class than a slot with less
      for (int a = 0; a < profile.length; a++) {
        for (int b = 0; b < profile.length; b++) {
          if (profile[a] < profile[b]) {
            assertThat(map.classOf(a)).as("class of slot %d (%s) vs slot %d (%s): monotone", a,
                profile[a], b, profile[b]).isLessThanOrEqualTo(map.classOf(b));
          }
        }
      }
      assertThat(classify.apply(profile)).as("same map for the same profile").isEqualTo(map);
    });
  }

  @Test
  void shouldCatchAClassifierThatReadsTheProfileBackwards() {
    // broken: slot s is classified by the usage of slot 95 - s
    Function<double[], SlotMap> backwards = profile -> {
      double[] reversed = new double[profile.length];
      for (int s = 0; s < profile.length; s++) {
        reversed[s] = profile[profile.length - 1 - s];
      }
      return classifier.classify(GRID, reversed);
    };

    assertCatches(seed -> classesRiseWithUsage(seed, backwards), "monotone");
  }
}
