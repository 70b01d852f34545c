package io.tideline.core.pbt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.function.Consumer;

/**
 * Proof that a property can fail (the way {@code ArchitectureRulesTest} checks its rules on a
 * violating fixture): run the property on a deliberately broken fixture and require that
 * QuickTheories falsifies it on every fixed seed, for the reason the property is about.
 */
public final class PropertyFailures {

  private PropertyFailures() {}

  /**
   * Asserts that {@code property} fails for every fixed seed, with a QuickTheories falsification
   * naming the seed whose cause mentions {@code because} (the message of the violated check, so
   * the fixture is caught by the invariant it targets and not by an accident). Without
   * shrinking: only the failure matters here, not its smallest counterexample.
   */
  public static void assertCatches(Consumer<Seed> property, String because) {
    for (Seed seed : Seeds.fixed()) {
      assertThat(catchThrowable(() -> Seeds.withoutShrinking(() -> property.accept(seed))))
          .as("the property should catch the broken fixture with %s", seed)
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("Property falsified")
          .hasMessageContaining("Seed was " + seed.value())
          .hasMessageContaining(because);
    }
  }
}
