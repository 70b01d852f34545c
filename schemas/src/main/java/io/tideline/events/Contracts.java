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
      QuotaConfigDocument.class,
      QuotaChange.class,
      QuotaReclaim.class,
      FragmentationReport.class,
      LedgerInput.class);

  /**
   * Every record that is the value of a kernel's state store (ADR 0008: typed persisted state):
   * checked like the topic records, so a stored entity written by one version is read by the
   * next.
   */
  public static final List<Class<? extends SpecificRecord>> STATE_RECORDS = List.of(
      io.tideline.state.ForecastHistory.class,
      io.tideline.state.ForecastHolding.class,
      io.tideline.state.ForecastCalibration.class,
      io.tideline.state.ForecastGpu.class,
      io.tideline.state.ForecastJob.class,
      io.tideline.state.ForecastNode.class,
      io.tideline.state.ForecastHoliday.class,
      io.tideline.state.ForecastClock.class,
      io.tideline.state.ForecastSlotMap.class);

  /** The topic records and the state records: everything the compatibility check covers. */
  public static List<Class<? extends SpecificRecord>> all() {
    List<Class<? extends SpecificRecord>> out = new java.util.ArrayList<>(TOPIC_RECORDS);
    out.addAll(STATE_RECORDS);
    return out;
  }

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
