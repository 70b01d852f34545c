package io.tideline.quota.stream;

/** What the topology reports to the service's meters (a no-op in topology tests). */
public interface QuotaListener {

  QuotaListener NONE = new QuotaListener() {};

  /** A record of {@code topic} was accepted as input. */
  default void accepted(String topic) {}

  /** A record of {@code topic} was dead-lettered. */
  default void deadLettered(String topic, String errorClass) {}

  /** A verdict was published. */
  default void verdict(String verdict) {}
}
