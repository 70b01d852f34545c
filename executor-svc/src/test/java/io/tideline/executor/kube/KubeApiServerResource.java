package io.tideline.executor.kube;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.opentest4j.TestAbortedException;

/**
 * Quarkus test resource: a real kube-apiserver and etcd with the executor's RBAC from
 * {@code deploy/k8s}, and the application's fabric8 client pointed at it as the executor's service
 * account, with the executor enabled ({@code tideline.executor.*}).
 *
 * <p>Where the binaries are missing (no Go on this machine) the application starts with the
 * executor off, and {@link #server()} skips the tests that need the API server, saying why; under
 * CI ({@code CI=true}) a missing binary fails the start instead, as everywhere else.
 */
public class KubeApiServerResource implements QuarkusTestResourceLifecycleManager {

  /** The lease identity of the application's executor. */
  public static final String IDENTITY = "executor-app-1";

  private static volatile KubeApiServer current;
  private static volatile String missing;
  private final Map<String, String> previous = new HashMap<>();

  /** The running API server, or a skip saying why there is none. */
  public static KubeApiServer server() {
    Assumptions.assumeTrue(current != null, () -> String.valueOf(missing));
    return current;
  }

  @Override
  public Map<String, String> start() {
    try {
      KubeApiServer.binaries();
    } catch (TestAbortedException e) {
      missing = e.getMessage();
      return Map.of("tideline.executor.enabled", "false");
    }
    try {
      current = KubeApiServer.start("executor-app");
      current.installExecutorRbac(Path.of(System.getProperty("tideline-home", "../.tideline"))
          .toAbsolutePath().getParent());
    } catch (Exception e) {
      stop();
      throw new IllegalStateException("could not start the API server: " + e, e);
    }
    current.executorClientProperties().forEach((k, v) -> {
      previous.put(k, System.getProperty(k));
      System.setProperty(k, v);
    });
    return Map.of("tideline.executor.enabled", "true",
        "tideline.executor.identity", IDENTITY,
        "tideline.executor.lease-namespace", "tideline",
        "tideline.executor.lease-duration", "6s",
        "tideline.executor.renew-deadline", "4s",
        "tideline.executor.retry-period", "1s");
  }

  @Override
  public void stop() {
    previous.forEach((k, v) -> {
      if (v == null) {
        System.clearProperty(k);
      } else {
        System.setProperty(k, v);
      }
    });
    previous.clear();
    if (current != null) {
      current.close();
      current = null;
    }
  }
}
