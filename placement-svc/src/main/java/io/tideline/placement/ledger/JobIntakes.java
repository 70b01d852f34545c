package io.tideline.placement.ledger;

import io.tideline.events.JobSubmitted;
import org.apache.kafka.common.serialization.Deserializer;

/** Adapts the shared untyped registry deserializer to {@code JobIntake}'s typed one. */
final class JobIntakes {

  private JobIntakes() {}

  /** A view of {@code d} typed as JobSubmitted; JobIntake checks the actual type it gets. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static Deserializer<JobSubmitted> typed(Deserializer<Object> d) {
    return (Deserializer) d;
  }
}
