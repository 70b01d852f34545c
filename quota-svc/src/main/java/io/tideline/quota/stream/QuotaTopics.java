package io.tideline.quota.stream;

import io.tideline.events.BillingUsage;
import io.tideline.events.DeadLetter;
import io.tideline.events.QuotaChange;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaState;
import io.tideline.events.QuotaVerdict;
import io.tideline.platform.kernel.quota.QuotaHost;
import io.tideline.platform.topics.TopicCatalogue;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/** The topics the quota topology reads and writes; outputs are routed by record type. */
public final class QuotaTopics {

  public static final String CONFIG = QuotaHost.CONFIG;
  public static final String CHANGES = QuotaHost.CHANGES;
  public static final String RECLAIMS = QuotaHost.RECLAIMS;

  /** Every input, in the order the topology subscribes. */
  public static final List<String> INPUTS = List.of(CONFIG, TopicCatalogue.JOBS_SUBMITTED,
      TopicCatalogue.JOBS_LIFECYCLE, TopicCatalogue.FORECAST_SLOTS, TopicCatalogue.GPU_TELEMETRY,
      TopicCatalogue.GPU_TELEMETRY_BATCHES, TopicCatalogue.CLUSTER_CLOCK);

  private QuotaTopics() {}

  /** Where an output record goes. */
  static String topicOf(SpecificRecord r) {
    if (r instanceof QuotaVerdict) {
      return TopicCatalogue.QUOTA_VERDICTS;
    } else if (r instanceof QuotaState) {
      return TopicCatalogue.QUOTA_STATE;
    } else if (r instanceof BillingUsage) {
      return TopicCatalogue.BILLING_USAGE;
    } else if (r instanceof QuotaChange) {
      return CHANGES;
    } else if (r instanceof QuotaReclaim) {
      return RECLAIMS;
    } else if (r instanceof DeadLetter d) {
      return d.getOriginalTopic() + ".dlq";
    }
    throw new IllegalArgumentException("no topic for " + r.getClass().getName());
  }
}
