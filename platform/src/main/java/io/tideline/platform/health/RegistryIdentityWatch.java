package io.tideline.platform.health;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.tideline.platform.TidelineConfig;
import io.tideline.platform.serde.SchemaCaches;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Watches the schema registry's {@link RegistryIdentity} from the service's start
 * ({@code tideline.registry.identity-check-interval}, and on every readiness check): when it is not
 * the one this process started with — the registry lost its storage, or the URL now reaches
 * another registry — every serde's schema cache is emptied ({@link SchemaCaches#resetAll}), so no
 * schema id cached from the old registry is used again, the change is logged and counted, and
 * the new identity is adopted.
 */
@ApplicationScoped
public class RegistryIdentityWatch {

  private static final Logger LOG = Logger.getLogger(RegistryIdentityWatch.class);

  private final TidelineConfig config;
  private volatile String identity;
  private volatile Instant changedAt;
  private volatile int changes;
  private ScheduledExecutorService timer;

  public RegistryIdentityWatch(TidelineConfig config) {
    this.config = config;
  }

  void onStart(@Observes StartupEvent ev) {
    check();
    long every = Math.max(1, config.registry().identityCheckInterval().toMillis());
    timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "registry-identity-watch");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleWithFixedDelay(this::check, every, every, TimeUnit.MILLISECONDS);
  }

  void onStop(@Observes ShutdownEvent ev) {
    if (timer != null) {
      timer.shutdownNow();
    }
  }

  /** Checks the identity now; returns it, or {@code null} when the registry cannot be asked. */
  public synchronized String check() {
    String now;
    try {
      now = RegistryIdentity.getOrCreate(config.registry().url());
    } catch (Exception e) {
      LOG.debugf("registry identity not checked: %s", e);
      return null;
    }
    if (identity == null) {
      identity = now;
      LOG.infof("schema registry %s has identity %s", config.registry().url(), now);
    } else if (!identity.equals(now)) {
      int reset = SchemaCaches.resetAll();
      LOG.errorf("the schema registry at %s changed identity (%s -> %s): it lost its schemas or"
          + " is another registry; %d schema caches emptied, no cached schema id is trusted",
          config.registry().url(), identity, now, reset);
      identity = now;
      changedAt = Instant.now();
      changes++;
    }
    return now;
  }

  /** The identity adopted, or null before the first answer. */
  public String identity() {
    return identity;
  }

  /** When the identity last changed, or null. */
  public Instant changedAt() {
    return changedAt;
  }

  /** How often it changed since start. */
  public int changes() {
    return changes;
  }
}
