package io.tideline.core.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

/**
 * The decision core's two structural rules: no framework imports, no wall clock. Both are checked
 * on the production classes, and each rule is shown to catch a violating fixture so it cannot pass
 * vacuously.
 */
class ArchitectureRulesTest {

  static final ArchRule NO_FRAMEWORKS = noClasses()
      .that().resideInAPackage("io.tideline.core..")
      .should().dependOnClassesThat().resideInAnyPackage(
          "org.apache.kafka..", "io.quarkus..", "jakarta..", "javax.inject..", "io.smallrye..",
          "io.micrometer..", "io.apicurio..")
      .because("scheduler-core is the pure decision library; services are the adapters");

  static final ArchRule NO_WALL_CLOCK = noClasses()
      .that().resideInAPackage("io.tideline.core..")
      .should().callMethod(System.class, "currentTimeMillis")
      .orShould().callMethod(System.class, "nanoTime")
      .orShould().callMethod(Instant.class, "now")
      .orShould().callMethod(LocalDate.class, "now")
      .orShould().callMethod(LocalDateTime.class, "now")
      .orShould().callMethod(ZonedDateTime.class, "now")
      .orShould().callMethod(Clock.class, "systemUTC")
      .orShould().callMethod(Clock.class, "systemDefaultZone")
      .because("decisions take 'now' as input: simulation and audit replay depend on it");

  private static JavaClasses production() {
    return new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.tideline.core");
  }

  @Test
  void shouldImportNoFrameworkInDecisionCode() {
    JavaClasses classes = production();
    assertThat(classes).isNotEmpty();
    NO_FRAMEWORKS.check(classes);
  }

  @Test
  void shouldNeverReadTheWallClockInDecisionCode() {
    NO_WALL_CLOCK.check(production());
  }

  @Test
  void shouldCatchADecisionThatReadsTheWallClock() {
    JavaClasses fixture = new ClassFileImporter().importClasses(WallClockReader.class);
    assertThatThrownBy(() -> NO_WALL_CLOCK.check(fixture))
        .hasMessageContaining("Instant.now()");
  }

  /** A deliberately impure "decision", used only to prove the rule bites. */
  static final class WallClockReader {
    Instant decide() {
      return Instant.now();
    }
  }
}
