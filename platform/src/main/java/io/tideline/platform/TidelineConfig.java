package io.tideline.platform;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The settings every Tideline service shares ({@code tideline.*}). Service-specific policy lives in
 * each service's own mapping; the numbers of REQUIREMENTS.md are defaults there.
 */
@ConfigMapping(prefix = "tideline")
public interface TidelineConfig {

  /** Name of this service; tags dead letters and metrics. */
  String service();

  /** Cluster this instance serves (the allocation ledger's key). */
  @WithDefault("default")
  String cluster();

  /** The schema registry. */
  Registry registry();

  /** Topic housekeeping. */
  Topics topics();

  /** Schema registry settings. */
  interface Registry {
    /** Root URL of the Apicurio registry, e.g. {@code http://127.0.0.1:8085}. */
    String url();

    /** Register new schema versions on first use (off in production, where CI registers them). */
    @WithDefault("true")
    boolean autoRegister();

    /**
     * How often the registry's identity is checked; when it changed, every cached schema id is
     * dropped (the registry lost its schemas or is another one).
     */
    @WithDefault("15s")
    java.time.Duration identityCheckInterval();
  }

  /** Topic settings. */
  interface Topics {
    /** Create every catalogued topic this service uses at start-up if missing (local runs, tests). */
    @WithDefault("false")
    boolean autoCreate();

    /** Replication factor for auto-created topics. */
    @WithDefault("1")
    short replicationFactor();
  }
}
