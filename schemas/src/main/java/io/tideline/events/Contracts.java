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
      GpuSampleBatch.class,
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
      LedgerInput.class,
      LedgerChange.class);

  /**
   * Every record that is the value of some service's state store (namespace
   * {@code io.tideline.state}): internal, but a restore reads every version ever written, so they
   * are documented and kept BACKWARD compatible like the topic records.
   */
  public static final List<Class<? extends SpecificRecord>> STATE_RECORDS = List.of(
      io.tideline.state.QuotaJobRecord.class,
      io.tideline.state.JobSamplesRecord.class,
      io.tideline.state.BillingDayRecord.class,
      io.tideline.state.QueueHistoryRecord.class,
      io.tideline.state.ServicePeakRecord.class,
      io.tideline.state.PendingReclaimRecord.class,
      io.tideline.state.QuotaDefinitionRecord.class,
      io.tideline.state.QuotaClockRecord.class,
      io.tideline.state.StoredJob.class,
      io.tideline.state.StoredNode.class,
      io.tideline.state.StoredAdmission.class,
      io.tideline.state.StoredFacts.class,
      io.tideline.state.StoredBinding.class,
      io.tideline.state.StoredPending.class,
      io.tideline.state.StoredQueueMark.class,
      io.tideline.state.StoredSlotWindow.class,
      io.tideline.state.StoredEvicting.class,
      io.tideline.state.StoredReclaimNamed.class,
      io.tideline.state.StoredParkedAnswer.class,
      io.tideline.state.PlacementMetaState.class,
      io.tideline.state.PreemptionMetaState.class,
      io.tideline.state.StoredInboxEntry.class,
      LedgerHold.class,
      LedgerReservation.class,
      // the forecast kernel's tables (forecaster-svc's stores)
      io.tideline.state.ForecastHistory.class,
      io.tideline.state.ForecastHolding.class,
      io.tideline.state.ForecastCalibration.class,
      io.tideline.state.ForecastGpu.class,
      io.tideline.state.ForecastJob.class,
      io.tideline.state.ForecastNode.class,
      io.tideline.state.ForecastHoliday.class,
      io.tideline.state.ForecastClock.class,
      io.tideline.state.ForecastSlotMap.class);

  /** Topic records then state records: everything the compatibility check covers. */
  public static List<Class<? extends SpecificRecord>> all() {
    List<Class<? extends SpecificRecord>> all = new java.util.ArrayList<>(TOPIC_RECORDS);
    all.addAll(STATE_RECORDS);
    return List.copyOf(all);
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
