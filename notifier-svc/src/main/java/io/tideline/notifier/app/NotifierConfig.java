package io.tideline.notifier.app;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Typed configuration of the notifier ({@code notifier.*}): routing defaults, channels, digest,
 * retries and rate limits (P7 explainability notices, O3 Slack and e-mail).
 */
@ConfigMapping(prefix = "notifier")
public interface NotifierConfig {

  /** Consumer group of the decision inputs; a fresh group replays them (audit) without re-sending. */
  @WithDefault("notifier-svc")
  String groupId();

  /** Start the engine with the application (off only for tests that drive engines themselves). */
  @WithDefault("true")
  boolean autoStart();

  /** P7: link to request more guaranteed quota; {tenant} and {jobId} are filled in URL-encoded. */
  @WithDefault("https://quota.example.com/request?tenant={tenant}&job={jobId}")
  String quotaRequestUrl();

  /** How long one poll of the inputs waits. */
  @WithDefault("200ms")
  Duration pollTimeout();

  /** Digest: a user's notices within this event-time window after the first go out as one. */
  @WithDefault("60s")
  Duration digestWindow();

  /** Defaults for users without a directory entry (O3). */
  Defaults defaults();

  /** Per-user settings from configuration (the notify.directory topic overrides them). */
  Map<String, User> users();

  /** Slack incoming webhooks (O3). */
  Slack slack();

  /** SMTP e-mail (O3). */
  Email email();

  /** Retries and dead letters. */
  Retry retry();

  /** The join of applied evictions with their decisions (P7, ADR 0019). */
  Join join();

  /** What {@code /q/health} holds the engine to. */
  Health health();

  /**
   * The eviction-decision join: notices follow applied evictions, explained by the decision that
   * ordered them. Both waits are in event time (the facts' own times and the cluster clock).
   */
  interface Join {
    /**
     * How long after its {@code decidedAt} a preemption decision waits for the evictions of its
     * victims; a victim whose eviction has not come by then is never told (placement did not
     * apply the decision: stale plan, victim already gone). Bounds the decisions held.
     */
    @WithDefault("1h")
    Duration decisionHorizon();

    /**
     * How long after its {@code issuedAt} an applied eviction waits for the decision that
     * ordered it (read from another topic, it may come later); then it is notified with its own
     * reason only. Joined evictions go out at once: this delays only those without a decision.
     */
    @WithDefault("10m")
    Duration evictionWait();
  }

  /** Health. */
  interface Health {
    /**
     * DOWN when the engine's loop has not turned for this long (a send with all its retries and
     * back-off stays well inside it at the defaults).
     */
    @WithDefault("120s")
    Duration stalledAfter();
  }

  /** Routing defaults. */
  interface Defaults {
    /** Channels: SLACK and/or EMAIL. */
    @WithDefault("EMAIL,SLACK")
    List<String> channels();

    /** Language (en, zh-CN). */
    @WithDefault("en")
    String locale();

    /** Zone for quiet hours and times shown. */
    @WithDefault("UTC")
    String zone();

    /** Whether bursts are digested. */
    @WithDefault("true")
    boolean digest();
  }

  /** One user's settings in configuration. */
  interface User {
    Optional<List<String>> channels();

    Optional<String> email();

    Optional<String> slackWebhookUrl();

    Optional<String> slackUserId();

    Optional<String> locale();

    Optional<String> zone();

    /** Local HH:mm. */
    Optional<String> quietStart();

    /** Local HH:mm. */
    Optional<String> quietEnd();

    Optional<Boolean> digest();
  }

  /** Slack. */
  interface Slack {
    /** The default incoming-webhook URL (users may have their own); empty disables Slack for them. */
    Optional<String> webhookUrl();

    /** Rate limit: at least this long between two posts to one webhook (Slack: ~1 per second). */
    @WithDefault("1s")
    Duration minInterval();

    /** Request timeout. */
    @WithDefault("10s")
    Duration timeout();
  }

  /** E-mail. */
  interface Email {
    /** Rate limit: at least this long between two e-mails to one address. */
    @WithDefault("0s")
    Duration minInterval();
  }

  /** Retries. */
  interface Retry {
    /** Attempts per notice and channel before it is dead-lettered on notices.dlq. */
    @WithDefault("4")
    int maxAttempts();

    /** Delay after the first failure. */
    @WithDefault("500ms")
    Duration initialBackoff();

    /** Growth of the delay per further failure. */
    @WithDefault("2.0")
    double multiplier();

    /** Largest delay. */
    @WithDefault("10s")
    Duration maxBackoff();
  }
}
