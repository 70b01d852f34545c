package io.tideline.notifier.app;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/**
 * {@code /q/health} tells the truth about the notifier's engine (issue #16 finding 2): DOWN when
 * the engine is not running, its worker thread has died, or its loop has not turned within
 * {@code notifier.health.stalled-after}; not ready until its start-up restore is done.
 */
public final class NotifierHealth {

  private NotifierHealth() {}

  static HealthCheckResponse check(String name, NotifierService service, boolean needRestored) {
    var r = HealthCheckResponse.named(name);
    if (!service.config().autoStart()) {
      return r.up().withData("engine", "not started by configuration").build();
    }
    NotifierEngine engine = service.engine();
    if (engine == null) {
      return r.down().withData("engine", "not running").build();
    }
    NotifierEngine.Health h = engine.health(service.config().health().stalledAfter());
    r.withData("alive", h.alive()).withData("restored", h.restored())
        .withData("lastTurnSecondsAgo", h.sinceLastTurn().toSeconds());
    if (h.stoppedBy() != null) {
      r.withData("stoppedBy", h.stoppedBy());
    }
    boolean up = h.turning() && (!needRestored || h.restored());
    return r.status(up).build();
  }

  /** Live while the engine's loop turns. */
  @Liveness
  @ApplicationScoped
  public static class Live implements HealthCheck {
    private final NotifierService service;

    public Live(NotifierService service) {
      this.service = service;
    }

    @Override
    public HealthCheckResponse call() {
      return check("notifier-engine", service, false);
    }
  }

  /** Ready once restored and while the loop turns. */
  @Readiness
  @ApplicationScoped
  public static class Ready implements HealthCheck {
    private final NotifierService service;

    public Ready(NotifierService service) {
      this.service = service;
    }

    @Override
    public HealthCheckResponse call() {
      return check("notifier-engine-restored", service, true);
    }
  }
}
