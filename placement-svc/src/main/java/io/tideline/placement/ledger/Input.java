package io.tideline.placement.ledger;

import io.tideline.platform.ledger.InputTopic;
import io.tideline.platform.topics.TopicCatalogue;

/** The ledger's inputs, by topic. The ordinal is part of the {@link io.tideline.platform.ledger.Envelope} encoding: append only. */
public enum Input implements InputTopic {
  INVENTORY(TopicCatalogue.CLUSTER_INVENTORY),
  SUBMITTED(TopicCatalogue.JOBS_SUBMITTED),
  VERDICT(TopicCatalogue.QUOTA_VERDICTS),
  LIFECYCLE(TopicCatalogue.JOBS_LIFECYCLE),
  RESERVATION(TopicCatalogue.CAPACITY_RESERVATIONS),
  CLOCK(TopicCatalogue.CLUSTER_CLOCK),
  FORECAST(TopicCatalogue.FORECAST_SLOTS),
  PREEMPTION_DECISION(TopicCatalogue.PREEMPTION_DECISIONS),
  /** Quota's reclaims: the jobs a reclaim-triggered decision may evict (ADR 0029). */
  RECLAIM(TopicCatalogue.QUOTA_RECLAIMS);

  private final String topic;

  Input(String topic) {
    this.topic = topic;
  }

  @Override
  public String topic() {
    return topic;
  }

  /** The input read from {@code topic}, or {@code null}. */
  public static Input of(String topic) {
    return InputTopic.of(Input.class, topic);
  }
}
