package io.tideline.platform.serde;

import io.apicurio.registry.resolver.SchemaResolver;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import org.jboss.logging.Logger;

/**
 * The schema caches of every registry serde of this process ({@link AvroSerdes} registers each).
 * A schema id means something only in the registry that issued it: when the registry's identity
 * changes (it was wiped, or the service now points at another one), {@link #resetAll} empties
 * every cache so no id cached from the old registry is trusted again (issue #16 finding 6).
 */
public final class SchemaCaches {

  private static final Logger LOG = Logger.getLogger(SchemaCaches.class);
  private static final Set<SchemaResolver<?, ?>> RESOLVERS =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));
  private static volatile int resets;

  private SchemaCaches() {}

  static void track(SchemaResolver<?, ?> resolver) {
    if (resolver != null) {
      RESOLVERS.add(resolver);
    }
  }

  /** Empties the schema cache of every live serde; returns how many were reset. */
  public static int resetAll() {
    int n = 0;
    synchronized (RESOLVERS) {
      for (SchemaResolver<?, ?> r : RESOLVERS) {
        try {
          r.reset();
          n++;
        } catch (RuntimeException e) {
          LOG.warnf("could not reset a schema cache: %s", e);
        }
      }
    }
    resets++;
    return n;
  }

  /** How many times the caches were reset (tests, health data). */
  public static int resets() {
    return resets;
  }

  /** Serdes tracked now (tests). */
  static int tracked() {
    return RESOLVERS.size();
  }
}
