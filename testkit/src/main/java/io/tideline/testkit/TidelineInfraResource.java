package io.tideline.testkit;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * Quarkus test resource: starts a real broker and registry before the application and points it at
 * them. Tests reach them through {@link #infra()}.
 *
 * <pre>{@code @QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)}</pre>
 */
public class TidelineInfraResource implements QuarkusTestResourceLifecycleManager {

  private static volatile TidelineInfra current;

  /** The infrastructure of the running test application. */
  public static TidelineInfra infra() {
    if (current == null) {
      throw new IllegalStateException("TidelineInfraResource has not started");
    }
    return current;
  }

  @Override
  public Map<String, String> start() {
    current = TidelineInfra.start();
    return current.config();
  }

  @Override
  public void stop() {
    if (current != null) {
      current.close();
      current = null;
    }
  }
}
