package io.tideline.events;

import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;

/**
 * The top-level event records, one per topic family. This list is what the compatibility check
 * walks: a record added here without a released version under {@code src/main/avro-history} fails
 * the build, as does a change that the released versions cannot be read with.
 */
public final class Contracts {

  /** Every record that is the value of some topic. */
  public static final List<Class<? extends SpecificRecord>> TOPIC_RECORDS = List.of(
      GpuSample.class,
      NodeInventory.class,
      ClockTick.class,
      JobSubmitted.class,
      JobLifecycle.class,
      QuotaVerdict.class,
      QuotaState.class,
      SlotForecast.class,
      SlotClassMap.class,
      Holiday.class,
      CapacityReservation.class,
      PlacementDecision.class,
      QueuePosition.class,
      PreemptionRequest.class,
      PreemptionDecision.class,
      Eviction.class,
      Notice.class,
      BillingUsage.class,
      DeadLetter.class,
      NotifyPreference.class,
      NoticeDelivery.class,
      NoticeJoin.class,
      QuotaConfigDocument.class,
      QuotaChange.class,
      QuotaReclaim.class,
      FragmentationReport.class,
      LedgerInput.class);

  private Contracts() {}

  /** The schema a generated record class was built from. */
  public static Schema schemaOf(Class<? extends SpecificRecord> type) {
    try {
      return (Schema) type.getField("SCHEMA$").get(null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(type + " is not a generated Avro record", e);
    }
  }
}
