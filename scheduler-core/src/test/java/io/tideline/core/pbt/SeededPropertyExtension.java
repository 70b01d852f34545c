package io.tideline.core.pbt;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;

/**
 * Runs a {@link SeededProperty} once per seed of the run, hands it its {@link Seed}, and turns a
 * failure into a report that starts with the seed and how to reproduce and keep it.
 */
public final class SeededPropertyExtension implements TestTemplateInvocationContextProvider {

  @Override
  public boolean supportsTestTemplate(ExtensionContext context) {
    return context.getTestMethod().map(m -> m.isAnnotationPresent(SeededProperty.class))
        .orElse(false);
  }

  @Override
  public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(
      ExtensionContext context) {
    return Seeds.forThisRun().stream().map(Invocation::new);
  }

  /** The failure report of {@code property} for {@code seed}; the cause follows it. */
  static String report(Seed seed, String testClass, String method, Throwable failure) {
    String n = Long.toString(seed.value());
    String regressionName = "shouldHoldForSeed_" + n.replace('-', 'm');
    return String.format(
        "Property %s.%s failed for %s.%n"
            + "  Re-run it:  ./mvnw -B -ntp -pl scheduler-core test -Dtest='%s#%s' -D%s=%s%n"
            + "  Keep it as a regression example in %s:%n"
            + "    @Test void %s() { %s(Seed.of(%sL)); }%n"
            + "%s",
        testClass, method, seed, testClass, method, Seeds.SEED_PROPERTY, n, testClass,
        regressionName, method, n, failure.getMessage());
  }

  private record Invocation(Seed seed) implements TestTemplateInvocationContext {

    @Override
    public String getDisplayName(int invocationIndex) {
      return seed.toString();
    }

    @Override
    public List<Extension> getAdditionalExtensions() {
      return List.of(new SeedParameter(seed), new SeedReport(seed));
    }
  }

  private record SeedParameter(Seed seed) implements ParameterResolver {

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
      return p.getParameter().getType() == Seed.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
      return seed;
    }
  }

  private record SeedReport(Seed seed) implements TestExecutionExceptionHandler {

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) {
      throw new AssertionError(report(seed, context.getRequiredTestClass().getSimpleName(),
          context.getRequiredTestMethod().getName(), failure), failure);
    }
  }
}
