package io.tideline.console;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/** The repository's root, and the machine's tools the real-parts tests run. */
public final class Repo {

  private Repo() {}

  /** The repository root (Surefire sets {@code console.repo.root}; else the module's parent). */
  public static Path root() {
    String set = System.getProperty("console.repo.root");
    Path p = set != null && !set.isBlank() ? Path.of(set) : Path.of("..");
    return p.toAbsolutePath().normalize();
  }

  /**
   * The path of a tool (Debian's {@code prometheus}, {@code promtool}, {@code chromium}): the test
   * is skipped with the reason when it is missing, and fails under {@code CI=true}, where
   * {@code .ci/run} installs it.
   */
  public static Path tool(String name, String debianPackage) {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path p = Path.of(dir, name);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    String why = name + " is not installed (Debian: apt-get install " + debianPackage + ")";
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      throw new AssertionError(why + "; CI must run this test");
    }
    Assumptions.abort(why + "; skipped");
    return null;
  }
}
