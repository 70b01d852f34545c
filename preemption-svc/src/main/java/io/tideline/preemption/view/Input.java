package io.tideline.preemption.view;

import io.tideline.platform.kernel.PreemptionHost;
import io.tideline.platform.ledger.InputTopic;
import io.tideline.platform.topics.TopicCatalogue;

/**
 * What preemption reads, by topic ({@link PreemptionHost#inputTopics()}). The ordinal is part of
 * the in-flight {@link io.tideline.platform.ledger.Envelope} encoding between the intake and the
 * writer; the retained input log names topics, not ordinals.
 */
public enum Input implements InputTopic {
  INVENTORY(TopicCatalogue.CLUSTER_INVENTORY),
  SUBMITTED(TopicCatalogue.JOBS_SUBMITTED),
  VERDICT(TopicCatalogue.QUOTA_VERDICTS),
  LIFECYCLE(TopicCatalogue.JOBS_LIFECYCLE),
  CLOCK(TopicCatalogue.CLUSTER_CLOCK),
  /** Placement's applied ledger changes: the view is their fold (ADR 0008). */
  LEDGER(TopicCatalogue.PLACEMENT_LEDGER),
  REQUEST(TopicCatalogue.PREEMPTION_REQUESTS),
  /** Quota's reclaims (Q3 guarantee, Q7 idle and shrink). */
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
